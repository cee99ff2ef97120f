import { once } from "node:events";
import { createServer } from "node:net";

/**
 * A loopback port nothing listens on when this returns: bind it to start a server there, or connect to it to see
 * a refused connection. Another process may take it in between; tests accept that small race.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}
