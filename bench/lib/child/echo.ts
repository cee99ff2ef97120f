// The baseline HTTP server: bare Express 5 (the API's own express), JSON body parser, the parsed body echoed
// back as JSON on any POST. Nothing else: no auth, no database, no Redis.
//   ECHO_PORT
import express from "express";

const port = Number(process.env.ECHO_PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("ECHO_PORT is required\n");
  process.exit(2);
}

const app = express();
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
app.post("/{*path}", express.json({ limit: "5mb", type: () => true }), (req, res) => {
  res.json(req.body);
});
const server = app.listen(port, "127.0.0.1");
server.keepAliveTimeout = 65_000;
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
