export { testEnv, createTempDatabase } from "./env.ts";
export { silentLogger } from "./logger.ts";
export { freePort, startThrowawayRedis } from "./redis-server.ts";
