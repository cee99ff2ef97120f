import { createLogger } from "@gw/logger";

/** Tests log nothing unless TEST_LOG=1. */
export const silentLogger = createLogger({ service: "test", level: "debug", silent: process.env.TEST_LOG !== "1" });
