import express, { type RequestHandler } from "express";

/**
 * The JSON body parser, for the routes that take a body (spec 2.1, 2.4). Any content type is read as JSON,
 * since clients often omit it; bad JSON becomes a 422 and an oversized body a 413 in the error handler.
 * Routes without a body (GETs, the two retries of 4.7/4.8) never parse one, so nothing sent there can fail.
 */
export const jsonBody: RequestHandler = express.json({ type: () => true, limit: "256kb", strict: false });
