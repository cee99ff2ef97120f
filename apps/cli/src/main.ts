// `pnpm gateway <command>`: the operator CLI (`pnpm gateway --help`). Text on a terminal; JSON with `--json` or when
// stdout is not a terminal (scripts). Errors go to stderr. Exit 0 on success, 1 when running failed (database
// unreachable, unexpected error), 2 on a usage error (command, option, value, environment, unknown id).
import { runCli } from "./run.ts";

// `pnpm gateway audit list ... | head -1`: a reader that stops early is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

process.exit(
  await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  }),
);
