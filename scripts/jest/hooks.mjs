// A module-resolution hook of the test workers (worker.mjs registers it): "@jest/globals" is globals.mjs, whose
// bindings the worker fills from jest-circus for each file. Everything else resolves as Node resolves it.
const GLOBALS = new URL("./globals.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "@jest/globals") return { url: GLOBALS, shortCircuit: true };
  return nextResolve(specifier, context);
}
