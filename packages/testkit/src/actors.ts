/**
 * Who acts in a test that calls a changing service directly (fixtures, set-ups): the services audit every change
 * under an actor (ARCHITECTURE.md, "The audit rule"). Structurally an `Actor` of @gw/core.
 */
export const testActor = Object.freeze({ id: "test", origin: "system" as const });
