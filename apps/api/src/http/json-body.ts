import express, { type RequestHandler } from "express";
import { bodyCutShort } from "./errors.ts";

const parseJson = express.json({ type: () => true, limit: "256kb", strict: false });

/**
 * The JSON body parser, for the routes that take a body (spec 2.1, 2.4). Any content type is read as JSON,
 * since clients often omit it; bad JSON becomes a 422 and an oversized body a 413 in the error handler.
 * Routes without a body (GETs, the two retries of 4.7/4.8) never parse one, so nothing sent there can fail.
 * A body the client stopped sending is a 400 whether it stopped before the parser started (body-parser would
 * skip it and leave no body) or while it read (body-parser's `request.aborted`).
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (req.readableAborted) return next(bodyCutShort());
  parseJson(req, res, next);
};
