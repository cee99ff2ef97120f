// What `import { describe, it, expect, jest } from "@jest/globals"` gives a test file under the in-process runner
// (runner.mjs): the hook in hooks.mjs resolves "@jest/globals" here. The bindings are live: the worker installs
// jest-circus's functions of the file it is about to run before it imports that file.
export let describe, fdescribe, xdescribe, it, fit, xit, test, xtest, beforeAll, beforeEach, afterAll, afterEach;
export let expect, jest;

export function installGlobals(globals) {
  ({ describe, fdescribe, xdescribe, it, fit, xit, test, xtest, beforeAll, beforeEach, afterAll, afterEach } = globals);
  ({ expect, jest } = globals);
}
