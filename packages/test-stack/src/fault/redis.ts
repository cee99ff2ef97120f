import { connect } from "node:net";

/**
 * One inline Redis command over a raw socket (no client library for a single command); resolves with the reply
 * line. For FLUSHALL on the suite's own throwaway Redis, never the shared one.
 */
export function redisCommand(url: string, command: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${command}\r\n`));
    let reply = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error(`Redis não respondeu a ${command}`)));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.endsWith("\r\n")) {
        socket.end();
        resolve(reply.trim());
      }
    });
    socket.on("error", reject);
  });
}
