-- W3C trace context (issue 29, item 5; docs/decisions.md, "Traces"). A send's `traceparent` (its API request's span)
-- is kept on the message, because Meta's statuses for it arrive later as requests of their own: each delivery they
-- create joins the send's trace through it. A delivery keeps the context it joined, so every attempt (retries, the
-- sweep's jobs, manual retries) is a child of it. Null: recorded before traces existed, or nothing to join.
ALTER TABLE messages ADD COLUMN trace_context text;
ALTER TABLE deliveries ADD COLUMN trace_context text;
