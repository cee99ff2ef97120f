// Generated from the gateway's OpenAPI document by `pnpm client:generate`. Do not edit.
export interface paths {
  "/public/v1/messages": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a message (text, template, interactive, media, reaction or location)
     * @description Free text needs the contact's 24-hour window open (`outside_24h_window` otherwise: send an approved template). So do the other free-form kinds, one per request and read only without `text` and `template`: `interactive` (reply buttons, a list, a URL button, a location request), `media` (by `media_id` of an upload of this account on this number, or by public `link`), `reaction` (to a message the contact sent, within 30 days; `emoji: ""` removes it) and `location`. Every WhatsApp limit is checked before the provider (422 `HTTPValidationError` naming the field; nothing is sent). With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["sendMessage"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/messages/{message_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One sent message
     * @description A message the account sent (by the API, the panel or a campaign): its recipient, kind, template, current status (as `message.status` last reported it), Meta's pricing block, the failure when it failed, and `routed_via`, the Graph endpoint that carried it (`messages`, or `marketing_messages` for a number whose MARKETING templates go through Meta's Marketing Messages API). Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getMessage"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/messages/{message_id}/read": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Mark a received message read (and show typing)
     * @description Marks a contact's message read at Meta (the contact sees the blue ticks), through the business number that received it; Meta also marks the earlier messages of the conversation read. With `typing: true` the contact also sees a typing indicator until the reply arrives or for 25 s: show it only when a reply is coming. One typing indicator per conversation at a time: another one for the same (or an older) message within 25 s is `rate_limited` (nothing is sent; a newer message of the contact may have its own at once). No message is sent: no new `message_id`, nothing is billed, no `message.status` webhook follows. Messages received more than 30 days ago are `message_too_old`. Marking a message already read again (without typing) answers at once with its `read_at`. Safe to repeat. Audited as `api.inbound_message.marked_read`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["markMessageRead"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/orders": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Pix orders
     * @description Newest first, optionally only those in one order status or payment status. Repeat with `before_id=next_before_id` until it is null. Each order without its history (read it with `GET /orders/{reference_id}`). Requires an API key with the scope `orders:write` (403 `insufficient_scope` otherwise).
     */
    get: operations["listOrders"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/orders/{reference_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One Pix order, with its history
     * @description The order a `pix_order` send recorded, its current order and payment status, and its history: the order_details message, then each order_status message, with the outcome the provider reported for it (`message_status`). Another account's reference is `not_found`. Requires an API key with the scope `orders:write` (403 `insufficient_scope` otherwise).
     */
    get: operations["getOrder"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/orders/{reference_id}/status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send an order's next status (order_status message)
     * @description Sends an `order_status` message with the order's `reference_id` to the customer the order went to, from the number it left from, and moves the order when the provider accepts it (never before). The transition is checked before the provider (422, nothing sent): nothing follows `completed` or `canceled`, the payment never leaves `captured`, `canceled` needs the payment `failed` (already, or in the same message), and the status never goes back. Without `template` it is a free-form message: the customer's 24-hour window must be open (422 `outside_24h_window` otherwise). With `template` (an approved UTILITY template of sub-category ORDER_STATUS, `GET /templates` shows `sub_category`) it is Meta's order-status template, sent in or out of the window; another template is refused before the provider (422 `invalid_template`). Both forms follow the same transitions, one update in flight per order, and write the same history (its `form` says which carried each status). With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body. Requires an API key with the scope `orders:write` (403 `insufficient_scope` otherwise).
     */
    post: operations["updateOrderStatus"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/media": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload a media file (then send it by media_id)
     * @description A `multipart/form-data` body with the file in the part `file` (and, before it, `phone_number_id` when the file is for a number other than the account's default). The file is streamed to Meta's media upload as it arrives, never held whole. Its type is read from its bytes: a file of no type WhatsApp carries is `415 media_type_unsupported`, bytes of another type than the part's `Content-Type` are `422 media_type_mismatch` (`application/octet-stream` lets the bytes decide). Each type has Meta's size cap, enforced while reading: image 5 MB, video and audio 16 MB, document 100 MB, sticker 100 KB static / 500 KB animated (binary units); past it `413 payload_too_large` and nothing is created at Meta. Answered `201` with Meta's `media_id`, which this account can send (`media.media_id` on `POST /messages`) from the same number for 30 days, and read back with `GET /media/{media_id}`. At most a few uploads of one account run at once (`429 media_upload_limit`), and each server takes a bounded number (`503 media_busy`); both answer `Retry-After`. A body that arrives below the server's minimum rate (a few KB/s, measured over successive windows of some seconds) is cut with `400 bad_request`. Audited as `api.media.uploaded`. Requires an API key with the scope `media:write` (403 `insufficient_scope` otherwise).
     */
    post: operations["uploadMedia"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/media/{media_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Download a media this account uploaded or received
     * @description Streams the file of a media id this account got from `POST /media` or from a `message.received` event (`media_id`), fetched from Meta with the gateway's credentials when asked for and never stored by the gateway. Answered with the file's `Content-Type` (Meta's type, else the one the gateway recorded), `Content-Length` when known and `Content-Disposition: attachment` with its file name (the upload's or the document's, else `<media_id>.<ext>`). Another account's media id is `404 not_found`, like an unknown one. Meta keeps received media 7 days and uploads 30 days: past that, or once Meta says it no longer has the file, the answer is `410 media_expired`. A file past its type's cap is `413 payload_too_large`. At most a few downloads of one account run at once (`429 media_download_limit`, with `Retry-After`), and each server fetches a bounded number of media at once (`503 media_busy`, with `Retry-After`). A download that breaks midway, or that the client reads below the server's minimum rate (a few KB/s, measured over successive windows of some seconds), is cut (the connection closes), never a short file that looks whole. Audited as `api.media.opened`. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getMedia"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/validate": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Validate and normalize a phone format
     * @description `valid=true` does not confirm registration on the channel, authorization to send or delivery. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    post: operations["validatePhone"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/window/{to}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Is the 24-hour window open
     * @description Counts from the last time the CONTACT wrote. A contact that never wrote yields `open: false` (not an error), and so does an account without any business number. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getWindow"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/conversations/{recipient}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A conversation's window, handler and holder
     * @description The customer's conversation on a business number (`phone_number_id`, the account's default otherwise): its 24-hour window, as GET /window/{to} says it; who answers the customer on the business's side (`handler`: the integrator's bot, or a person after POST /conversations/{recipient}/handover); and who holds it under Meta's Conversation Routing (`thread`): the gateway's app, another app (Meta's Business AI agent, say) or nobody after a release. The holder is the newest of what the customer's last message (on Meta's `messages` or `standby` field), Meta's handover notifications and the gateway's own thread control said. A customer the gateway never heard of answers a closed window held by the gateway (not an error). Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getConversation"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/conversations/{recipient}/handover": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Hand a conversation to a person, or back to the bot
     * @description Who answers the customer on the business's side: `to: human` when the bot asks for a person (the customer tapped "falar com atendente"), `to: bot` when the person gives the conversation back. From then on `message.received` (payload version 2) carries `handler`, so the bot stays quiet while a person holds it, and GET /conversations/{recipient} shows it. A person's hold goes back to the bot after the account's timeout (24 h by default) without a new handover; handing it over again renews it. Nothing is sent to the customer. Integrations that chose `conversation.updated` get it (`change: handover`). Audited as `api.conversation.handover`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["handOverConversation"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/conversations/{recipient}/thread-control": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pass, take or release a conversation (Conversation Routing)
     * @description Meta gives each customer's conversation on a business number one holder app (Conversation Routing). This calls Meta's thread control through the business number (`phone_number_id`, the account's default otherwise): `pass` hands the conversation to Meta's Business AI agent (`target_role: ai_agent`) or to the number's escalation partner, `take` takes it (the escalation partner only), `release` lets it go (Meta's entry-point routing picks who answers the customer's next message). Meta refuses an action that does not fit who holds the conversation: `thread_control_not_permitted`. No message is sent and nothing is billed; Meta notifies the other app, not this one, so no `conversation.handover` follows. While another app holds it, the customer's messages still reach version-2 integrations, with `standby: true`. The answer says who holds it now, as GET /conversations/{recipient} does. Safe to repeat after a network error (a repeat of a done action is refused as not permitted). Audited as `api.conversation.thread_control`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["controlConversationThread"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/numbers": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Business numbers
     * @description The account's business numbers, the default first, each with the pace its sends keep and whether its MARKETING templates go through Meta's Marketing Messages API (`marketing_messages`). Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["listNumbers"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/numbers/{phone_number_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change a business number's settings
     * @description `marketing_messages: on` sends the number's MARKETING templates (the API's sends and campaigns alike) through Meta's Marketing Messages API (`POST /{phone_number_id}/marketing_messages`); every other category stays on the Cloud API. Turn it on once the business is onboarded there. A template's category is the catalogue's, kept current by Meta's `template_category_update`. A refusal of that API is answered as is (`template_syncing`, `template_not_eligible`, `marketing_messages_unavailable`...), never sent again through /messages. Answers, statuses and events look the same whichever endpoint carried a send; GET /messages/{message_id} says which (`routed_via`). Every pod routes by the change from its next send. Audited as `api.number.marketing_messages`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    patch: operations["updateNumber"];
    trace?: never;
  };
  "/public/v1/templates": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Template catalogue
     * @description Only approved templates by default; `status=ALL` returns every status. `body.variables_count` is the number of entries the send's `variables` must have. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["listTemplates"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/export": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The delivery log of a time range as CSV
     * @description Streamed, one line per delivery created in [`since`, `until`) (`until` absent: now; at most 31 days), oldest first, with the deliveries list's filters. Columns: delivery_id, event, status, attempts, created_at, occurred_at, delivered_at, next_attempt_at, last_status_code, last_error_kind, last_error, message_id, integration_id, endpoint_url. RFC 4180 CSV: UTF-8 without a byte order mark, comma-separated, CRLF line ends, every text cell quoted, numbers bare. Safe to open in a spreadsheet however it splits the line (on `,` or `;`, with quotes honoured or not): wherever a cell could start inside a value (its start, and after a `,`, `;`, tab or line break in it), an apostrophe is put before a formula start (`=`, `+`, `-`, `@`, tab, CR, also past quotes and blanks), and a negative number is written as such a text. Audited (`api.deliveries.exported`). Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["exportDeliveries"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Webhook delivery queue
     * @description Most recent first. Repeat with `before_id=next_before_id` until `next_before_id` is null. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["listDeliveries"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/retry-failed": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend all failed deliveries
     * @description Re-queues every delivery that exhausted its automatic attempts. No body (one sent is ignored), no parameters. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["retryFailedDeliveries"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/{delivery_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One delivery
     * @description `last_error` is the body the integrator's endpoint answered, also on 2xx. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getDelivery"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/{delivery_id}/retry": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend a delivery
     * @description For deliveries in `failed` or `delivered`; the body is signed again at dispatch with a current timestamp. Audited as `api.webhook.retry`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["retryDelivery"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/integrations": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Integrations
     * @description The account's webhook integrations, oldest first, without their signing secrets. Repeat with `cursor=next_cursor` until it is null. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    get: operations["listIntegrations"];
    put?: never;
    /**
     * Register a webhook integration
     * @description The URL is checked as the panel checks it: https:// only, and a host that is a loopback, private, link-local or reserved address, or `localhost`, is refused (the dispatcher checks every resolved address again at each attempt); a URL the account already has is refused too (`url_taken`: change it with PATCH). The answer carries the `signing_secret`, shown only here and at a rotation: keep it now. With `Idempotency-Key`, a repeat with the same key and body (after a connection error or a 5xx) gets the first answer again, `signing_secret` included, while the key lives, with `Idempotent-Replayed: true`. An account has at most MAX_INTEGRATIONS_PER_ACCOUNT integrations (10 by default; `integration_limit_reached` beyond). `payload_version` absent: 2, so a tap on a list row or reply button arrives with its id (`interactive.id`); 1 keeps the contract's original `message.received` body. Audited as `api.integration.saved`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["createIntegration"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/integrations/{integration_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One integration
     * @description Its URL, events, state and signature scheme. The signing secret is never shown here. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    get: operations["getIntegration"];
    put?: never;
    post?: never;
    /**
     * Delete an integration
     * @description The integration and its deliveries (with their attempts) are removed: pending ones are never attempted, and the deliveries list, the export and replays no longer find them. To stop deliveries for a while, PATCH `active: false` instead. No body. Audited as `api.integration.deleted`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    delete: operations["deleteIntegration"];
    options?: never;
    head?: never;
    /**
     * Change an integration
     * @description Only the fields given change. The URL is checked as at registration (the current one too, as the panel's edit form does). `active: false` pauses it (new events create no deliveries for it), `true` resumes it; switching `deliver_in_order` off releases the deliveries it held. Changing `signature_scheme` changes the headers of the next attempts, with the same secret. Changing `payload_version` changes the `message.received` body of the events that come after it (a delivery already made keeps its body). The secret is never shown here. Audited as `api.integration.updated`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    patch: operations["updateIntegration"];
    trace?: never;
  };
  "/public/v1/integrations/{integration_id}/rotate-secret": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate an integration's signing secret
     * @description A new secret signs from now on; for `overlap_hours` (default 24) deliveries are also signed with the one it replaces (X-PT-Signature-Previous, or a second `v1,` value in webhook-signature), so a receiver still holding it keeps verifying; `overlap_hours: 0` ends the old one at once (a leaked secret). The new `signing_secret` is shown only in this answer. Body optional. Audited as `api.integration.secret_rotated`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["rotateIntegrationSecret"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/integrations/{integration_id}/health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Endpoint health of an integration
     * @description From the attempts the dispatcher made to the integration's URL over the last hour and the last day: success rate, latency percentiles (p50, p95, p99, linear interpolation) and the last error. An integration whose every attempt failed for the configured time (default 5 days) is disabled by the gateway (`disabled_at`, `disabled_reason`): its deliveries wait, without attempts, until it is re-enabled with `POST /integrations/{integration_id}/enable`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    get: operations["getIntegrationHealth"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/integrations/{integration_id}/enable": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-enable an integration the gateway disabled
     * @description After fixing the endpoint. The deliveries that waited are sent again at once, each with a fresh budget of automatic attempts (X-PT-Attempt counts on). An integration that is not disabled is left as it is (`was_disabled: false`). No body. Audited as `api.integration.enabled`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["enableIntegration"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/replay": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend the deliveries of a time range
     * @description Every delivery created in [`since`, `until`) (`until` absent: now) that matches the filters and is `failed` or `delivered` (and still within its retention) is sent again: same `delivery_id` and signed body, new attempts (`X-PT-Attempt` keeps counting) with a fresh budget of automatic attempts, each signed when it is made. The work runs in the background in short batches; follow it with `GET /deliveries/replays/{replay_id}`. Audited (`api.delivery_replay.created`, then `api.webhook.retry` per batch). Limited per account (`REPLAYS_PER_ACCOUNT` per `REPLAYS_WINDOW_SECONDS`, 10 per hour by default, shared with the panel): past it, 429 `api_rate_limited` with `Retry-After`. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    post: operations["replayDeliveries"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/deliveries/replays/{replay_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Progress of a replay
     * @description Status, how many deliveries matched and how many were put back in the queue so far, and when. Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    get: operations["getDeliveryReplay"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/event-types": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Webhook event catalogue
     * @description Every event the gateway can POST to an integration (the document's `webhooks`), with a Portuguese description, the JSON Schema of its signed body and an example. The schemas are the document's own webhook schemas with their components put in place (no `$ref`). Requires an API key with the scope `integrations:manage` (403 `insufficient_scope` otherwise).
     */
    get: operations["listEventTypes"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Campaigns
     * @description Newest first, with their progress. Repeat with `before_id=next_before_id` until it is null. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["listCampaigns"];
    put?: never;
    /**
     * Create a campaign (a bulk template send), as a draft
     * @description Every row is validated before anything is sent: an invalid number, the wrong number of variables for the template (or any other pre-check of a template send), or a recipient already given by an earlier row is refused on its own and reported in `rejected_rows`; the others are the campaign's recipients. Nothing is sent until `POST /campaigns/{campaign_id}/start` names the accepted count. Up to 100000 rows, as a JSON list or as a CSV file (`Content-Type: text/csv`, the campaign's fields in the query string; columns: to, variable_1 … variable_20, header_text, header_media_link, header_media_type, header_media_filename, button_url_param, button_url_index, coupon_code, client_ref; separated by `,` or `;`; the header line is required and `row` numbers count data rows; at most 20 MiB, 64 fields per line and 32768 characters per field: the file is read as it arrives and refused at the first line past a limit or past row 100000). Each recipient is sent through the same send service as `POST /messages` (its `message.status` events carry `campaign_id`), paced at the business number's messaging rate. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["createCampaign"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One campaign, with its progress
     * @description `progress` counts each recipient once, in its furthest state (delivered and read come from the provider's statuses). `eta_seconds` is what the queued recipients need at the number's rate in force. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getCampaign"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/recipients": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A campaign's recipients and their outcome
     * @description In list order. `status` filters by outcome. `error_code` is the stable code of the refusal or of the failed status. Repeat with `after_id=next_after_id` until it is null. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["listCampaignRecipients"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/recipients/export": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A campaign's outcome list as CSV
     * @description Streamed, one line per recipient in list order, columns: row, to, client_ref, status, message_id, error_code, error_message, attempts, updated_at. RFC 4180 CSV: UTF-8 without a byte order mark, comma-separated, CRLF line ends, every text cell quoted, numbers bare. Safe to open in a spreadsheet however it splits the line (on `,` or `;`, with quotes honoured or not): wherever a cell could start inside a value (its start, and after a `,`, `;`, tab or line break in it), an apostrophe is put before a formula start (`=`, `+`, `-`, `@`, tab, CR, also past quotes and blanks), and a negative number is written as such a text. Requires an API key with the scope `messages:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["exportCampaignRecipients"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/start": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a draft campaign
     * @description Only with `accepted_recipients` equal to the campaign's accepted count (`campaign_count_mismatch` otherwise), so a campaign never starts on a list its creator did not see validated. It runs at once, or at its `start_at` (status `scheduled` until then). Audited as `api.campaign.started`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["startCampaign"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/pause": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pause a campaign
     * @description From `running` or `scheduled`. Recipients being sent finish; the others wait for `resume`. No body (one sent is ignored). Audited as `api.campaign.paused`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["pauseCampaign"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/resume": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resume a paused campaign
     * @description From `paused`: `running` again (`scheduled` while its `start_at` is ahead). No body (one sent is ignored). Refused with `account_disabled` while Meta keeps the number's WhatsApp Business Account banned or disconnected (every send would be refused). A campaign the gateway paused by itself says why in `pause_reason`. Audited as `api.campaign.resumed`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["resumeCampaign"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/campaigns/{campaign_id}/cancel": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a campaign
     * @description From `draft`, `scheduled`, `running` or `paused`, for good: recipients not yet reserved become `cancelled`; one being sent finishes its send. No body (one sent is ignored). Audited as `api.campaign.cancelled`. Requires an API key with the scope `messages:send` (403 `insufficient_scope` otherwise).
     */
    post: operations["cancelCampaign"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/public/v1/usage": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Messages priced by Meta and their estimated cost
     * @description The account's cost ledger: the messages Meta reported a `pricing` for in their status webhooks, how many it charges (`pricing.type` `regular`; every other type costs 0) and their estimated cost in BRL by the deployment's rate card (an account may have rates of its own), grouped by São Paulo day, business number, pricing category and type. Categories and types are Meta's, verbatim; a charged message of a category without a rate is estimated at the marketing rate and counted in `fallback_messages`. An estimate: Meta's invoice applies volume tiers and its own exchange rate. At most 366 days per query. Requires an API key with the scope `usage:read` (403 `insufficient_scope` otherwise).
     */
    get: operations["getUsage"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface webhooks {
  "message.status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Status change of a sent message
     * @description Delivery, read or failure of a message sent by the platform. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onMessageStatus"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "message.received": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Message from a contact
     * @description A contact wrote to a business number (must be enabled explicitly). Events may arrive out of order. The sender is `from` (phone) and, since 2026, `from_user_id` (BSUID); `from` is null when Meta withheld the phone. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onMessageReceived"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "account.update": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Account or number health reported by Meta
     * @description Meta reported a change to the WhatsApp Business Account or one of its numbers (account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update, account_alerts): `value` as Meta sent it, events the gateway does not know included, and `effects`, what the gateway did (sends blocked or unblocked, campaigns paused, a number's rate raised). Opt-in: only integrations that selected `account.update` get it. Events of one WABA may arrive out of order: order them by `occurred_at`. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onAccountUpdate"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "order.updated": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A Pix order changed
     * @description Issue 28: the provider accepted an order_status message and the order moved (`trigger: status_sent`), or reported a status of one of the order's messages (`trigger: message_status`; a failure does not move the order back). Not sent when the order is created. Carries the order's status pair and the message, not the items or the history (read them with `GET /public/v1/orders/{reference_id}`). Opt-in: only integrations that selected `order.updated` get it. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onOrderUpdated"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "conversation.handover": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Meta moved a conversation between apps
     * @description Issue 37 (Conversation Routing): Meta's `messaging_handovers` notification. `control_passed`: another app (Meta's Business AI agent, say) passed the conversation to this gateway's app, so the customer's messages come as plain `message.received` again; `control_taken`: the escalation partner took it, and the customer's messages reach version-2 integrations with `standby: true`. The gateway's own `POST /conversations/{recipient}/thread-control` produces none (Meta notifies the other app), nor does a release. Opt-in: only integrations that selected `conversation.handover` get it. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onConversationHandover"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "conversation.updated": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A conversation changed on the business's side
     * @description Issue 39: who answers a customer changed. `change: handover`: a bot asked for a person (`handler: human`), or the person gave the conversation back (`handler: bot`), through `POST /conversations/{recipient}/handover`. `assigned`, `unassigned`, `closed` and `reopened` are reserved for the panel's inbox. A person's hold that lapses (the account's timeout) sends nothing: the next `message.received` says `handler: bot`. Opt-in: only integrations that selected `conversation.updated` get it. Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of `X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.
     */
    post: operations["onConversationUpdated"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    /**
     * @example {
     *       "event": "message.status",
     *       "occurred_at": "2026-01-01T12:00:05.000Z",
     *       "delivery_id": "1042",
     *       "data": {
     *         "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ2",
     *         "status": "failed",
     *         "status_rank": 1,
     *         "to": "5511987654321",
     *         "recipient_user_id": null,
     *         "error": {
     *           "code": 131026,
     *           "message": "Message undeliverable",
     *           "reason": "recipient_unreachable"
     *         },
     *         "phone_number_id": "100000000000001",
     *         "client_ref": "pedido-1234",
     *         "campaign_id": null,
     *         "pricing": null
     *       }
     *     }
     */
    MessageStatusEvent: {
      /** @enum {string} */
      event: "message.status";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["MessageStatusData"];
    };
    MessageStatusData: {
      /** @description Same id returned by the send */
      message_id: string;
      /** @enum {string} */
      status: "sent" | "delivered" | "read" | "failed";
      /** @description sent=2, delivered=3, read=4, failed=1 (a separate outcome: never handle it by numeric comparison; spec 3.1) */
      status_rank: number;
      /** @description Recipient as named in the send: a phone's digits, or a BSUID; same name as in the send */
      to: string;
      /** @description The recipient's WhatsApp business-scoped user id (BSUID), when known (Meta reports it on every status but failed ones of a send to a phone). Added in 2026 */
      recipient_user_id: string | null;
      /** @description Only when status is failed, otherwise null */
      error: {
        /** @description The provider's error number, e.g. 131026 */
        code: number;
        message: string;
        /** @description The service's stable code (spec 7), e.g. recipient_unreachable */
        reason: string;
      } | null;
      /** @description Business number */
      phone_number_id: string;
      /** @description Reference given at send */
      client_ref: string | null;
      /** @description Filled when the message left from a panel campaign */
      campaign_id: string | null;
      /** @description What the provider reported it will charge for the message, once per message: on the first status that carried it (`sent` or `delivered`), null on the others. Added in 2026 */
      pricing: {
        /** @description `PMP` (per-message pricing) */
        pricing_model: string | null;
        /** @description marketing, marketing_lite, utility, authentication, authentication-international, service, ... */
        category: string | null;
        /** @description regular (charged), free_customer_service, free_entry_point, ... */
        type: string | null;
      } | null;
    };
    /**
     * @example {
     *       "event": "message.received",
     *       "occurred_at": "2026-01-01T12:00:01.000Z",
     *       "delivery_id": "1041",
     *       "data": {
     *         "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNB",
     *         "from": "5511987654321",
     *         "from_user_id": "BR.1502576394655843",
     *         "from_parent_user_id": null,
     *         "from_username": null,
     *         "phone_number_id": "100000000000001",
     *         "type": "text",
     *         "text": "Oi!",
     *         "media_id": null,
     *         "media_mime": null,
     *         "media_filename": null,
     *         "reply_to_message_id": null,
     *         "contact_name": "Maria",
     *         "occurred_at": "2026-01-01T12:00:00.000Z",
     *         "window_expires_at": "2026-01-02T12:00:00.000Z"
     *       }
     *     }
     */
    MessageReceivedEvent: {
      /** @enum {string} */
      event: "message.received";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["MessageReceivedData"];
    };
    MessageReceivedData: {
      /** @description Id of the received message */
      message_id: string;
      /** @description Phone of the contact who sent the message; null only when the provider withheld it (a user with a WhatsApp username who has not shared the number: answer to `from_user_id`) */
      from: string | null;
      /** @description The sender's WhatsApp business-scoped user id (BSUID, e.g. `BR.1502576394655843`), on every message since 2026; send to it when `from` is null. Added in 2026 */
      from_user_id: string | null;
      /** @description The sender's parent BSUID (`BR.ENT.…`), when the business enabled them. Added in 2026 */
      from_parent_user_id: string | null;
      /** @description The sender's WhatsApp username, when set: display only, it can change. Added in 2026 */
      from_username: string | null;
      /** @description Business number */
      phone_number_id: string;
      /** @enum {string} */
      type:
        | "text"
        | "image"
        | "audio"
        | "video"
        | "document"
        | "sticker"
        | "location"
        | "contacts"
        | "button"
        | "interactive"
        | "unsupported";
      /** @description The text, a media caption, or the label of a received button/option; null when no text */
      text: string | null;
      /** @description Present when a file came; not a public URL and not permanently available */
      media_id: string | null;
      media_mime: string | null;
      media_filename: string | null;
      /** @description Id of the message quoted by the contact */
      reply_to_message_id: string | null;
      contact_name: string | null;
      /** @description ISO 8601 UTC; time of the received message as given by the provider */
      occurred_at: string;
      /** @description ISO 8601 UTC; until when the received message allows a free-text reply; keep the greatest per contact and business number */
      window_expires_at: string;
      /** @description The reply button or list row tapped (`type` interactive); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      interactive?: {
        /**
         * @description A reply button or a list row
         * @enum {string}
         */
        type: "button_reply" | "list_reply";
        /** @description The `id` the send gave the button or row: the option chosen */
        id: string;
        /** @description Its title, as the contact saw it (also in `text`) */
        title: string | null;
        /** @description The list row's description; null for a button or a row without one */
        description: string | null;
      } | null;
      /** @description The template quick-reply button tapped (`type` button); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      button?: {
        /** @description The payload the template send set for the button; Meta sends the label when none was set */
        payload: string | null;
        /** @description The button's label (also in `text`) */
        text: string | null;
      } | null;
      /** @description The location shared (`type` location); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      location?: {
        /** @description Decimal degrees */
        latitude: number;
        /** @description Decimal degrees */
        longitude: number;
        /** @description The place's name, when the contact shared one */
        name: string | null;
        address: string | null;
        /** @description Usually only for a business's location */
        url: string | null;
      } | null;
      /** @description The contact cards shared (`type` contacts), up to 257; null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      contacts?: components["schemas"]["ReceivedContact"][] | null;
      /** @description A reaction (`type` unsupported, `text` null) or its removal (`emoji` null); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      reaction?: {
        /** @description The business message reacted to (its `message_id` from the send) */
        message_id: string;
        /** @description The emoji; null when the contact removed their reaction */
        emoji: string | null;
      } | null;
      /** @description The click-to-WhatsApp ad or post the message came from (any type); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      referral?: {
        /** @description `ad` or `post` */
        source_type: string | null;
        /** @description The ad's or post's id */
        source_id: string | null;
        source_url: string | null;
        headline: string | null;
        body: string | null;
        /** @description `image` or `video` */
        media_type: string | null;
        image_url: string | null;
        video_url: string | null;
        thumbnail_url: string | null;
        /** @description Click id for conversion reporting; null for WhatsApp Status placements (Meta omits it) */
        ctwa_clid: string | null;
        /** @description The ad's welcome message text */
        welcome_message: string | null;
      } | null;
      /** @description The contact forwarded the message (true also when frequently forwarded). Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      forwarded?: boolean;
      /** @description Forwarded more than five times. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      frequently_forwarded?: boolean;
      /** @description Lowercase hex SHA-256 of the received file, as Meta reported it; null when no file came. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      media_sha256?: string | null;
      /** @description For an audio: whether it was recorded in WhatsApp (a voice note); null for other types. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      media_voice?: boolean | null;
      /** @description The customer's phone as the gateway knows them (issue 37): the one Meta's webhooks showed, or the one they shared answering a `request_contact_info`, also while Meta withholds it here (`from` null); null when never shared. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      contact_phone?: string | null;
      /** @description The message came on Meta's `standby` field: another app (such as Meta's Business AI agent) owns the conversation now (issue 37). It is stored and delivered like any other; a reply may need the conversation back first. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      standby?: boolean;
      /**
       * @description Who answers this customer on the business's side (issue 39): `bot`, or `human` after a handover to a person (POST /conversations/{recipient}/handover); a bot should stay quiet while it is `human`. Payload version 2 only: absent from the bodies of an integration on version 1 (the default)
       * @enum {string}
       */
      handler?: "bot" | "human";
      /** @description The customer's one-click card answer to a Pix order (`type` interactive, `interactive` null; issue 28); absent on every other message. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      payment_method?: {
        /** @description Meta's payment method, e.g. `offsite_card_pay` */
        payment_method: string;
        /** @description The order's reference_id */
        reference_id: string;
        /** @description Unix seconds, when Meta gave it */
        payment_timestamp: number | null;
        /** @description The card's last four digits */
        last_four_digits: string | null;
        /** @description The card credential to charge through the PSP */
        credential_id: string | null;
      } | null;
    };
    ReceivedContact: {
      /** @description The card's full name */
      formatted_name: string | null;
      first_name: string | null;
      last_name: string | null;
      /** @description `YYYY-MM-DD`, as the card says */
      birthday: string | null;
      phones: {
        /** @description As written on the card (`+55 11 99999-0000`) */
        phone: string | null;
        /** @description The WhatsApp id (digits) when the number is on WhatsApp */
        wa_id: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      emails: {
        email: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      urls: {
        url: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      addresses: {
        street: string | null;
        city: string | null;
        state: string | null;
        zip: string | null;
        country: string | null;
        country_code: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      organization: {
        company: string | null;
        department: string | null;
        title: string | null;
      } | null;
      /** @description Why it was shared (issue 37): `contact_request`, the customer's own card, in answer to the business's `request_contact_info` (the phone is then theirs: see `contact_phone`); `other`, any card shared unprompted; null when Meta gives none */
      origin?: string | null;
    };
    /**
     * @example {
     *       "event": "account.update",
     *       "occurred_at": "2026-11-20T14:10:02.000Z",
     *       "delivery_id": "2301",
     *       "data": {
     *         "account_event_id": "57",
     *         "waba_id": "100000000000001",
     *         "field": "phone_number_quality_update",
     *         "event": "THROUGHPUT_UPGRADE",
     *         "phone_number_id": "200000000000002",
     *         "occurred_at": "2026-11-20T14:10:00.000Z",
     *         "value": {
     *           "display_phone_number": "15550000000",
     *           "event": "THROUGHPUT_UPGRADE",
     *           "max_daily_conversations_per_business": "TIER_UNLIMITED"
     *         },
     *         "effects": {
     *           "sending_blocked": null,
     *           "paused_campaign_ids": [],
     *           "messaging_rate_per_second": 1000
     *         }
     *       }
     *     }
     */
    AccountUpdateEvent: {
      /** @enum {string} */
      event: "account.update";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["AccountUpdateData"];
    };
    AccountUpdateData: {
      /** @description The gateway's id of the stored event (the same on every retry) */
      account_event_id: string;
      /** @description The WhatsApp Business Account the event is about (Meta's `entry[].id`) */
      waba_id: string;
      /** @description Meta's webhook field: account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update or account_alerts */
      field: string;
      /** @description `value.event` as Meta sent it (DISABLED_UPDATE, ACCOUNT_RESTRICTION, THROUGHPUT_UPGRADE, ...), values the gateway does not know included; null when the field carries none (capability, template and alert updates) */
      event: string | null;
      /** @description The business number a phone_number_quality_update is about (matched by its display number), else null */
      phone_number_id: string | null;
      /** @description ISO 8601 UTC; Meta's time of the change (`entry[].time`), else when the gateway received it */
      occurred_at: string;
      /** @description Meta's `value`, exactly as sent (new keys included) */
      value: {
        [key: string]: unknown;
      };
      effects: components["schemas"]["AccountUpdateEffects"];
    };
    AccountUpdateEffects: {
      /** @description For a ban, deletion or disconnection (DISABLED_UPDATE with DISABLE, ACCOUNT_DELETED, ACCOUNT_OFFBOARDED, PARTNER_REMOVED, PARTNER_APP_UNINSTALLED) and for a reinstatement or reconnection (DISABLED_UPDATE with REINSTATE, ACCOUNT_RECONNECTED, PARTNER_ADDED, PARTNER_APP_INSTALLED): whether sends from the WABA's numbers are refused now (`account_disabled`); null for every other event */
      sending_blocked: boolean | null;
      /** @description Campaigns the gateway paused because of this event (a number's quality dropped to low, the account was restricted, disabled, banned or disconnected), each with its `pause_reason`; they stay paused until someone resumes them */
      paused_campaign_ids: string[];
      /** @description The number's new messaging rate when this event changed it (1000 after THROUGHPUT_UPGRADE), else null */
      messaging_rate_per_second: number | null;
    };
    /**
     * @example {
     *       "event": "order.updated",
     *       "occurred_at": "2026-12-04T10:00:02.000Z",
     *       "delivery_id": "3101",
     *       "data": {
     *         "reference_id": "pedido-12345",
     *         "phone_number_id": "100000000000001",
     *         "to": "5511987654321",
     *         "order_status": "processing",
     *         "payment_status": "captured",
     *         "payment_timestamp": 1780001000,
     *         "description": "Separando os itens",
     *         "trigger": "status_sent",
     *         "updated_at": "2026-12-04T10:00:01.000Z",
     *         "message": {
     *           "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ3",
     *           "kind": "order_status",
     *           "order_status": "processing",
     *           "payment_status": "captured",
     *           "message_status": null,
     *           "error": null
     *         }
     *       }
     *     }
     */
    OrderUpdatedEvent: {
      /** @enum {string} */
      event: "order.updated";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["OrderUpdatedData"];
    };
    OrderUpdatedData: {
      /** @description The order's reference_id */
      reference_id: string;
      /** @description The business number the order was sent from */
      phone_number_id: string;
      /** @description The customer as the Pix send named them: phone digits or a BSUID */
      to: string;
      /**
       * @description The order's status now
       * @enum {string}
       */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description The order's payment status now
       * @enum {string}
       */
      payment_status: "pending" | "captured" | "failed";
      payment_timestamp: number | null;
      /** @description The description of the order's last status message */
      description: string | null;
      /**
       * @description `status_sent`: the provider accepted an order_status message and the order moved; `message_status`: the provider reported a status (sent, delivered, read, failed) of one of the order's messages. A failure does not move the order back
       * @enum {string}
       */
      trigger: "status_sent" | "message_status";
      /** @description ISO 8601 UTC; when the order last changed */
      updated_at: string;
      message: components["schemas"]["OrderUpdatedMessage"];
    };
    OrderUpdatedMessage: {
      /** @description The order's message (its order_details or an order_status) */
      message_id: string;
      /** @enum {string} */
      kind: "order_details" | "order_status";
      /**
       * @description The order status the message carried
       * @enum {string}
       */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description The payment status the message carried; null when it carried no payment object
       * @enum {string|null}
       */
      payment_status: "pending" | "captured" | "failed" | null;
      /**
       * @description The provider's last status of the message; null until it reports one
       * @enum {string|null}
       */
      message_status: "sent" | "delivered" | "read" | "failed" | null;
      /** @description Only when message_status is failed, otherwise null */
      error: {
        /** @description The provider's error number, e.g. 131026 */
        code: number;
        message: string;
        /** @description The service's stable code (spec 7), e.g. recipient_unreachable */
        reason: string;
      } | null;
    };
    /**
     * @example {
     *       "event": "conversation.handover",
     *       "occurred_at": "2026-12-07T15:00:01.000Z",
     *       "delivery_id": "4201",
     *       "data": {
     *         "type": "control_passed",
     *         "phone_number_id": "100000000000001",
     *         "recipient": "5511987654321",
     *         "phone": "5511987654321",
     *         "user_id": "BR.1502576394655843",
     *         "holder": "gateway",
     *         "previous_role": "ai_agent",
     *         "current_role": "escalation_partner",
     *         "metadata": "cliente pediu um atendente",
     *         "occurred_at": "2026-12-07T15:00:00.000Z"
     *       }
     *     }
     */
    ConversationHandoverEvent: {
      /** @enum {string} */
      event: "conversation.handover";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["ConversationHandoverData"];
    };
    ConversationHandoverData: {
      /**
       * @description `control_passed`: another app (Meta's Business AI agent, say) passed the conversation to this gateway's app; `control_taken`: the escalation partner took it from this gateway's app
       * @enum {string}
       */
      type: "control_passed" | "control_taken";
      /** @description The business number of the conversation */
      phone_number_id: string;
      /** @description The customer as the conversation endpoints and sends take them: phone digits when Meta shared the phone, else the BSUID */
      recipient: string;
      /** @description The customer's phone digits; null when Meta withheld it */
      phone: string | null;
      /** @description The customer's BSUID; null when Meta sent none */
      user_id: string | null;
      /**
       * @description Who holds the conversation now: `gateway` after control_passed, `another_app` after control_taken
       * @enum {string}
       */
      holder: "gateway" | "another_app" | "released";
      /** @description Meta's role of the previous holder (`ai_agent`, ...), as sent */
      previous_role: string | null;
      /** @description Meta's role of the holder now (`escalation_partner`, ...), as sent */
      current_role: string | null;
      /** @description What the app that passed the conversation wrote for the new holder */
      metadata: string | null;
      /** @description ISO 8601 UTC; Meta's time of the change, else when the gateway received it */
      occurred_at: string;
    };
    /**
     * @example {
     *       "event": "conversation.updated",
     *       "occurred_at": "2026-12-07T15:10:00.000Z",
     *       "delivery_id": "4301",
     *       "data": {
     *         "change": "handover",
     *         "phone_number_id": "100000000000001",
     *         "recipient": "5511987654321",
     *         "phone": "5511987654321",
     *         "user_id": "BR.1502576394655843",
     *         "handler": "human",
     *         "note": "cliente pediu para falar com um atendente",
     *         "status": "open",
     *         "assignee": null,
     *         "by": "api",
     *         "occurred_at": "2026-12-07T15:10:00.000Z"
     *       }
     *     }
     */
    ConversationUpdatedEvent: {
      /** @enum {string} */
      event: "conversation.updated";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["ConversationUpdatedData"];
    };
    ConversationUpdatedData: {
      /**
       * @description `handover`: the handler changed (a bot asked for a person, or the person gave it back; a person's reply in the panel makes it `human` too); `assigned`, `unassigned`: the panel assigned it to a user or took the assignment away (an assignment makes it `human`); `closed`, `reopened`: closed in the panel (back to the bot), reopened in the panel or by the customer writing again
       * @enum {string}
       */
      change: "handover" | "assigned" | "unassigned" | "closed" | "reopened";
      /** @description The business number of the conversation */
      phone_number_id: string;
      /** @description The customer as the conversation endpoints and sends take them: phone digits, else the BSUID */
      recipient: string;
      /** @description The customer's phone digits; null when the gateway does not know it */
      phone: string | null;
      /** @description The customer's BSUID; null when the gateway does not know it */
      user_id: string | null;
      /**
       * @description Who answers the customer now
       * @enum {string}
       */
      handler: "bot" | "human";
      /** @description What the last handover said */
      note: string | null;
      /**
       * @description `open`, or `closed` (closing gives the conversation back to the bot)
       * @enum {string}
       */
      status: "open" | "closed";
      /** @description The panel user the conversation is assigned to; null when none */
      assignee: {
        /** @description The panel user's id */
        id: string;
        /** @description The panel user's name */
        name: string;
      } | null;
      /**
       * @description Where the change was made: `customer` when the customer's message reopened it
       * @enum {string}
       */
      by: "api" | "panel" | "customer";
      /** @description ISO 8601 UTC; when the gateway recorded the change */
      occurred_at: string;
    };
    ErrorResponse: {
      /** @enum {boolean} */
      success: false;
      error: {
        /** @description Stable code: program against it */
        code: string;
        /** @description Portuguese sentence for a person */
        message: string;
      };
    };
    ValidationError: {
      /** @description Where: body, query, path or header, then the field path */
      loc: (string | number)[];
      /** @description Portuguese sentence for a person */
      msg: string;
      /** @description Stable machine word: missing, string_too_long, too_long, int_parsing, enum, json_invalid, ... */
      type: string;
      /** @description The value that was refused, when there was one */
      input?: unknown;
      /** @description Limits of the failed check, e.g. {max_length: 32} */
      ctx?: {
        [key: string]: unknown;
      };
    };
    HTTPValidationError: {
      detail: components["schemas"]["ValidationError"][];
    };
    HeaderMediaIn: {
      /**
       * @description image, video or document; default document
       * @default document
       */
      type?: string;
      /** @description A PUBLIC http(s) URL the provider downloads without login; not an upload */
      link: string;
      filename?: string | null;
    };
    PixItemIn: {
      name: string;
      /** @description UNIT value in cents */
      amount: number;
      /** @default 1 */
      quantity?: number;
      retailer_id?: string | null;
    };
    PixPaymentLinkIn: {
      /** @description An https link where the customer pays */
      uri: string;
    };
    PixBoletoIn: {
      /** @description The boleto's digitable line, digits only: 47 (bank) or 48 (collection) */
      digitable_line: string;
    };
    PixOrderIn: {
      reference_id: string;
      pix_code: string;
      merchant_name: string;
      key: string;
      /**
       * @default CNPJ
       * @enum {string}
       */
      key_type?: "CNPJ" | "CPF" | "EMAIL" | "PHONE" | "EVP";
      items: components["schemas"]["PixItemIn"][];
      total_amount?: number | null;
      /** @default 0 */
      tax?: number;
      /**
       * @default digital-goods
       * @enum {string}
       */
      goods_type?: "digital-goods" | "physical-goods";
      payment_link?: components["schemas"]["PixPaymentLinkIn"] | null;
      boleto?: components["schemas"]["PixBoletoIn"] | null;
    };
    TemplateQualityOut: {
      /** @description Valor do provedor: GREEN, YELLOW, RED, UNKNOWN; null quando ausente. */
      score: string | null;
      /** @description Unix em segundos. */
      date: number | null;
      /** @description Vazio quando não há motivos; a estrutura pode variar. */
      reasons: unknown[];
    };
    TemplateHeaderOut: {
      /** @description TEXT, IMAGE, VIDEO, DOCUMENT, ... */
      format: string;
      text: string | null;
      /** @description O texto do cabeçalho tem uma variável: envie header_text. */
      needs_text: boolean;
      /** @description Cabeçalho de imagem, vídeo ou documento: envie header_media. */
      needs_media: boolean;
    };
    TemplateBodyOut: {
      text: string;
      /** @description Quantidade de itens que `variables` do envio deve ter. */
      variables_count: number;
      /** @description Nomes das variáveis (templates NAMED), na ordem em que aparecem. */
      variable_names: string[];
    };
    TemplateFooterOut: {
      text: string | null;
      code_expiration_minutes: number | null;
    };
    TemplateButtonOut: {
      index: number;
      type: string;
      text: string | null;
      url: string | null;
      phone_number: string | null;
      /** @description Botão de URL com variável: envie button_url_param. */
      needs_url_param: boolean;
      /** @description Botão de copiar código: envie coupon_code. */
      needs_coupon: boolean;
      /** @description Botão de código de verificação: envie otp_code. */
      needs_otp: boolean;
    };
    TemplateItemOut: {
      id: string | null;
      name: string;
      language: string;
      status: string;
      category: string;
      /** @description Meta's sub-category: `ORDER_STATUS` (sent only by POST /orders/{reference_id}/status), `ORDER_DETAILS` (a Pix order), `CUSTOM`; null when Meta gives none */
      sub_category: string | null;
      quality_score: components["schemas"]["TemplateQualityOut"] | null;
      rejected_reason: string | null;
      message_send_ttl_seconds: number | null;
      sendable: boolean;
      api_supported: boolean;
      api_unsupported_reason: string | null;
      header: components["schemas"]["TemplateHeaderOut"] | null;
      /** @enum {string} */
      parameter_format: "NAMED" | "POSITIONAL";
      body: components["schemas"]["TemplateBodyOut"];
      footer: components["schemas"]["TemplateFooterOut"] | null;
      buttons: components["schemas"]["TemplateButtonOut"][];
      body_text: string;
      variables_count: number;
      variable_names: string[];
      header_format: string | null;
      components: {
        [key: string]: unknown;
      }[];
    };
    DeliveryOut: {
      id: number;
      /** @enum {string} */
      event:
        | "message.status"
        | "message.received"
        | "account.update"
        | "order.updated"
        | "conversation.handover"
        | "conversation.updated";
      /** @enum {string} */
      status: "pending" | "delivering" | "delivered" | "failed";
      /** @description Attempts made so far (X-PT-Attempt of the last one) */
      attempts: number;
      next_attempt_at: string | null;
      last_status_code: number | null;
      /** @description Body the endpoint answered on the last attempt, also on 2xx */
      last_error: string | null;
      last_error_kind: string | null;
      created_at: string;
      delivered_at: string | null;
      occurred_at: string;
      endpoint_url: string;
      /** @description The signed body, parsed */
      envelope: {
        [key: string]: unknown;
      };
    };
    SendResultOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The id later carried as message_id in message.status */
        message_id: string;
        /** @description Recipient: a phone normalized to digits, or the BSUID as given */
        to: string;
        /** @enum {string} */
        status: "sent";
        /**
         * @description The kind sent: `text` and `template` as before; the others for the members of the same names
         * @enum {string}
         */
        type: "text" | "template" | "interactive" | "media" | "reaction" | "location";
        phone_number_id: string;
        client_ref: string | null;
      };
    };
    /**
     * @example {
     *       "to": "+55 11 98765-4321",
     *       "text": "Olá, Maria! Seu pedido saiu para entrega.",
     *       "client_ref": "pedido-12345"
     *     }
     * @example {
     *       "to": "5511987654321",
     *       "template": "pedido_confirmado",
     *       "language": "pt_BR",
     *       "variables": [
     *         "Maria",
     *         "12345",
     *         "3"
     *       ],
     *       "header_text": "12345",
     *       "client_ref": "pedido-12345"
     *     }
     * @example {
     *       "to": "5511987654321",
     *       "template": "cobranca_pix",
     *       "language": "pt_BR",
     *       "variables": [
     *         "Maria",
     *         "12345"
     *       ],
     *       "pix_order": {
     *         "reference_id": "pedido-12345",
     *         "pix_code": "00020101021226830014br.gov.bcb.pix2561qrcodes.exemplo.com.br/v2/cobv/9d36b84f5204000053039865406123.455802BR5912Loja Exemplo6009SAO PAULO62070503***6304ABCD",
     *         "merchant_name": "Loja Exemplo",
     *         "key": "39580525000189",
     *         "key_type": "CNPJ",
     *         "items": [
     *           {
     *             "name": "Bolo de chocolate",
     *             "amount": 4500,
     *             "quantity": 1,
     *             "retailer_id": "bolo-choc"
     *           },
     *           {
     *             "name": "Refrigerante 2 L",
     *             "amount": 900,
     *             "quantity": 2
     *           }
     *         ],
     *         "total_amount": 6300,
     *         "tax": 0,
     *         "goods_type": "physical-goods"
     *       },
     *       "client_ref": "pedido-12345"
     *     }
     * @example {
     *       "to": "5511987654321",
     *       "interactive": {
     *         "type": "list",
     *         "header": {
     *           "type": "text",
     *           "text": "Central de atendimento"
     *         },
     *         "body": "Olá! Escolha uma opção:",
     *         "footer": "Loja Exemplo",
     *         "button": "Ver opções",
     *         "sections": [
     *           {
     *             "title": "Financeiro",
     *             "rows": [
     *               {
     *                 "id": "opcao-1",
     *                 "title": "Segunda via do boleto",
     *                 "description": "Enviamos o PDF aqui na conversa"
     *               },
     *               {
     *                 "id": "opcao-2",
     *                 "title": "Pagar com Pix"
     *               }
     *             ]
     *           },
     *           {
     *             "title": "Pedidos",
     *             "rows": [
     *               {
     *                 "id": "opcao-3",
     *                 "title": "Rastrear pedido"
     *               }
     *             ]
     *           }
     *         ]
     *       },
     *       "client_ref": "menu-atendimento"
     *     }
     * @example {
     *       "to": "5511987654321",
     *       "interactive": {
     *         "type": "button",
     *         "body": "Seu pedido 12345 foi confirmado. Quer acompanhar a entrega?",
     *         "footer": "Loja Exemplo",
     *         "buttons": [
     *           {
     *             "id": "rastrear-12345",
     *             "title": "Rastrear pedido"
     *           },
     *           {
     *             "id": "atendente",
     *             "title": "Falar com atendente"
     *           }
     *         ]
     *       },
     *       "client_ref": "pedido-12345"
     *     }
     * @example {
     *       "to": "5511987654321",
     *       "media": {
     *         "type": "document",
     *         "media_id": "1013859600285441",
     *         "filename": "boleto-12345.pdf",
     *         "caption": "Seu boleto"
     *       },
     *       "client_ref": "pedido-12345"
     *     }
     */
    PublicSendIn: {
      /** @description The recipient: a phone number (any formatting), or a WhatsApp business-scoped user id (BSUID, e.g. `BR.1502576394655843`) of a user known only by it */
      to: string;
      /** @description Selects the business number; default number of the account otherwise */
      phone_number_id?: string | null;
      text?: string | null;
      /** @description Template name */
      template?: string | null;
      /** @default pt_BR */
      language?: string;
      /** @description Filled in order into {{1}}, {{2}}, ... of the template body */
      variables?: string[] | null;
      variable_names?: string[] | null;
      header_media?: components["schemas"]["HeaderMediaIn"] | null;
      header_text?: string | null;
      button_url_param?: string | null;
      /** @default 0 */
      button_url_index?: number;
      coupon_code?: string | null;
      /** @default 0 */
      coupon_index?: number;
      otp_code?: string | null;
      /** @default 0 */
      otp_index?: number;
      /** @description Quotes a message (any kind but a reaction): a `message_id` of this conversation */
      reply_to_message_id?: string | null;
      pix_order?: components["schemas"]["PixOrderIn"] | null;
      /** @description Caller reference, echoed in message.status events */
      client_ref?: string | null;
      /**
       * @description Reply buttons, a list, a URL button or a location request (free-form: the 24-hour window must be open). Ignored when `text` or `template` is given
       * @example {
       *       "type": "button",
       *       "body": "Seu pedido 12345 foi confirmado. Quer acompanhar a entrega?",
       *       "footer": "Loja Exemplo",
       *       "buttons": [
       *         {
       *           "id": "rastrear-12345",
       *           "title": "Rastrear pedido"
       *         },
       *         {
       *           "id": "atendente",
       *           "title": "Falar com atendente"
       *         }
       *       ]
       *     }
       * @example {
       *       "type": "list",
       *       "header": {
       *         "type": "text",
       *         "text": "Central de atendimento"
       *       },
       *       "body": "Como podemos ajudar?",
       *       "button": "Ver opções",
       *       "sections": [
       *         {
       *           "title": "Financeiro",
       *           "rows": [
       *             {
       *               "id": "opcao-1",
       *               "title": "Segunda via do boleto",
       *               "description": "Enviamos o PDF aqui na conversa"
       *             },
       *             {
       *               "id": "opcao-2",
       *               "title": "Pagar com Pix"
       *             }
       *           ]
       *         },
       *         {
       *           "title": "Pedidos",
       *           "rows": [
       *             {
       *               "id": "opcao-3",
       *               "title": "Rastrear pedido"
       *             }
       *           ]
       *         }
       *       ]
       *     }
       * @example {
       *       "type": "cta_url",
       *       "body": "As datas da próxima turma já estão abertas.",
       *       "display_text": "Ver datas",
       *       "url": "https://exemplo.com.br/turmas?c=1"
       *     }
       * @example {
       *       "type": "location_request",
       *       "body": "Para calcular o frete, compartilhe sua localização."
       *     }
       * @example {
       *       "type": "request_contact_info",
       *       "body": "Para acompanhar seu pedido por telefone, compartilhe seu número."
       *     }
       */
      interactive?:
        | components["schemas"]["InteractiveButtonsIn"]
        | components["schemas"]["InteractiveListIn"]
        | components["schemas"]["InteractiveCtaUrlIn"]
        | components["schemas"]["InteractiveLocationRequestIn"]
        | components["schemas"]["InteractiveRequestContactInfoIn"]
        | null;
      /**
       * @description An image, video, audio, document or sticker, by `media_id` or `link` (free-form). Ignored when `text` or `template` is given
       * @example {
       *       "type": "document",
       *       "media_id": "1013859600285441",
       *       "filename": "boleto-12345.pdf",
       *       "caption": "Seu boleto"
       *     }
       * @example {
       *       "type": "image",
       *       "link": "https://exemplo.com.br/produtos/bolo.jpg",
       *       "caption": "Bolo de chocolate"
       *     }
       * @example {
       *       "type": "audio",
       *       "media_id": "1013859600285442",
       *       "voice": true
       *     }
       */
      media?: {
        /** @enum {string} */
        type: "image" | "video" | "audio" | "document" | "sticker";
        /** @description A `media_id` of an upload of this account on this number (POST /public/v1/media) */
        media_id?: string | null;
        /** @description A PUBLIC http(s) URL the provider downloads without login (not recommended: the provider caches and may fail later) */
        link?: string | null;
        /** @description image, video and document only (up to 1024 characters) */
        caption?: string | null;
        /** @description The file name the recipient sees (documents only); no path separators or control characters */
        filename?: string | null;
        /**
         * @description audio only: a voice note (an OGG/Opus upload), played inline and transcribed by WhatsApp
         * @default false
         */
        voice?: boolean;
      } | null;
      /**
       * @description A reaction to a message the contact sent; `emoji: ""` removes it (free-form). Ignored when `text` or `template` is given
       * @example {
       *       "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBQjQ5Q0RFRjAxMjM0NTY3ODkA",
       *       "emoji": "👍"
       *     }
       * @example {
       *       "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBQjQ5Q0RFRjAxMjM0NTY3ODkA",
       *       "emoji": ""
       *     }
       */
      reaction?: {
        /** @description The `message_id` of a `message.received` of this contact on this number, from the last 30 days */
        message_id: string;
        /** @description One emoji; `""` removes the reaction sent before */
        emoji: string;
      } | null;
      /**
       * @description A map pin (free-form). Ignored when `text` or `template` is given
       * @example {
       *       "latitude": -23.561414,
       *       "longitude": -46.655881,
       *       "name": "Loja Paulista",
       *       "address": "Av. Paulista, 1000 - São Paulo, SP"
       *     }
       */
      location?: {
        /** @description Decimal degrees */
        latitude: number;
        /** @description Decimal degrees */
        longitude: number;
        name?: string | null;
        address?: string | null;
      } | null;
    };
    InteractiveButtonsIn: {
      /** @enum {string} */
      type: "button";
      /** @description Optional header: a text (up to 60 characters), or an image, video or document by media_id or link */
      header?:
        components["schemas"]["InteractiveHeaderTextIn"] | components["schemas"]["InteractiveHeaderMediaIn"] | null;
      /** @description The message text (up to 1024 characters) */
      body: string;
      /** @description Optional footer (up to 60 characters) */
      footer?: string | null;
      /** @description One to three reply buttons */
      buttons: components["schemas"]["InteractiveButtonIn"][];
    };
    InteractiveHeaderTextIn: {
      /** @enum {string} */
      type: "text";
      text: string;
    };
    InteractiveHeaderMediaIn: {
      /** @enum {string} */
      type: "image" | "video" | "document";
      /** @description A `media_id` of an upload of this account on this number (POST /public/v1/media) */
      media_id?: string | null;
      /** @description A PUBLIC http(s) URL the provider downloads without login (not recommended: the provider caches and may fail later) */
      link?: string | null;
      /** @description The file name the recipient sees (documents only); no path separators or control characters */
      filename?: string | null;
    };
    InteractiveButtonIn: {
      /** @description What `message.received` carries back as `interactive.id` when tapped */
      id: string;
      /** @description The button's label, unique in the message */
      title: string;
    };
    InteractiveListIn: {
      /** @enum {string} */
      type: "list";
      /** @description Optional header: a text only (up to 60 characters) */
      header?:
        components["schemas"]["InteractiveHeaderTextIn"] | components["schemas"]["InteractiveHeaderMediaIn"] | null;
      /** @description The message text (up to 4096 characters) */
      body: string;
      /** @description Optional footer (up to 60 characters) */
      footer?: string | null;
      /** @description The label of the button that opens the list */
      button: string;
      /** @description Up to 10 rows in all, across the sections */
      sections: components["schemas"]["InteractiveListSectionIn"][];
    };
    InteractiveListSectionIn: {
      /** @description Required, also with a single section */
      title: string;
      rows: components["schemas"]["InteractiveListRowIn"][];
    };
    InteractiveListRowIn: {
      /** @description What `message.received` carries back as `interactive.id` when chosen */
      id: string;
      title: string;
      description?: string | null;
    };
    InteractiveCtaUrlIn: {
      /** @enum {string} */
      type: "cta_url";
      /** @description Optional header: a text (up to 60 characters), or an image, video or document by media_id or link */
      header?:
        components["schemas"]["InteractiveHeaderTextIn"] | components["schemas"]["InteractiveHeaderMediaIn"] | null;
      body: string;
      /** @description Optional footer (up to 60 characters) */
      footer?: string | null;
      /** @description The button's label */
      display_text: string;
      /** @description The http(s) URL the button opens */
      url: string;
    };
    InteractiveLocationRequestIn: {
      /** @enum {string} */
      type: "location_request";
      body: string;
      /** @description Not accepted on a location request */
      header?: unknown;
      /** @description Not accepted on a location request */
      footer?: unknown;
      /** @description Not accepted on a location request */
      buttons?: unknown;
      /** @description Not accepted on a location request */
      button?: unknown;
      /** @description Not accepted on a location request */
      sections?: unknown;
      /** @description Not accepted on a location request */
      display_text?: unknown;
      /** @description Not accepted on a location request */
      url?: unknown;
    };
    InteractiveRequestContactInfoIn: {
      /** @enum {string} */
      type: "request_contact_info";
      /** @description Why the business asks for the phone */
      body: string;
      /** @description Not accepted on a request for contact information */
      header?: unknown;
      /** @description Not accepted on a request for contact information */
      footer?: unknown;
      /** @description Not accepted on a request for contact information */
      buttons?: unknown;
      /** @description Not accepted on a request for contact information */
      button?: unknown;
      /** @description Not accepted on a request for contact information */
      sections?: unknown;
      /** @description Not accepted on a request for contact information */
      display_text?: unknown;
      /** @description Not accepted on a request for contact information */
      url?: unknown;
    };
    MessageDetailOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        message_id: string;
        /** @description As the send named the recipient: phone digits or a BSUID */
        to: string;
        phone_number_id: string;
        /** @description The send's kind: text, template, interactive, media, reaction, location, order_status */
        type: string;
        template: string | null;
        /** @description accepted until Meta reports; then sent, delivered, read or failed */
        status: string;
        /**
         * @description The Graph endpoint that carried it: `messages` (Cloud API) or `marketing_messages`
         * @enum {string}
         */
        routed_via: "messages" | "marketing_messages";
        client_ref: string | null;
        campaign_id: string | null;
        created_at: string;
        /** @description When Meta reported the current status */
        status_at: string | null;
        /** @description Meta's pricing block, as first reported */
        pricing: {
          [key: string]: unknown;
        } | null;
        /** @description Only when status is failed */
        error: {
          code: number | null;
          message: string | null;
          reason: string | null;
        } | null;
      };
    };
    ReadOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The inbound message marked read (no message is sent: there is no new id) */
        message_id: string;
        /** @description The business number that received it, through which it was marked */
        phone_number_id: string;
        /** @enum {boolean} */
        read: true;
        /** @description Whether a typing indicator was shown */
        typing: boolean;
        /** @description ISO 8601 UTC: when it was marked read, by this call or an earlier one (marking a message also marks the earlier messages of its conversation) */
        read_at: string;
      };
    };
    /**
     * @example {
     *       "typing": true
     *     }
     * @example {}
     */
    ReadIn: {
      /**
       * @description Also show the contact a typing indicator (until the reply arrives, or 25 s). Only when a reply is coming: one per conversation at a time
       * @default false
       */
      typing?: boolean;
    };
    OrderListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        orders: components["schemas"]["OrderSummaryOut"][];
        next_before_id: number | null;
      };
    };
    OrderSummaryOut: {
      /** @description The order's id; the list's cursor */
      id: number;
      reference_id: string;
      /** @description The number the order was sent from; its status messages leave from it */
      phone_number_id: string;
      /** @description The customer as the Pix send named them: phone digits or a BSUID */
      to: string;
      /** @enum {string} */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /** @enum {string} */
      payment_status: "pending" | "captured" | "failed";
      payment_timestamp: number | null;
      description: string | null;
      goods_type: string;
      /** @enum {string} */
      currency: "BRL";
      template: string;
      client_ref: string | null;
      items: {
        name: string;
        /** @description Unit amount, cents */
        amount: number;
        quantity: number;
        retailer_id: string | null;
      }[];
      /** @description Cents */
      subtotal: number;
      /** @description Cents */
      tax: number;
      /** @description Cents */
      total_amount: number;
      /** @description The payment methods offered */
      payment_methods: ("pix" | "payment_link" | "boleto")[];
      /** @description The order_details message */
      message_id: string;
      created_at: string;
      updated_at: string;
    };
    OrderDetailOut: {
      /** @enum {boolean} */
      success: true;
      data: components["schemas"]["OrderOut"];
    };
    OrderOut: {
      /** @description The order's id; the list's cursor */
      id: number;
      reference_id: string;
      /** @description The number the order was sent from; its status messages leave from it */
      phone_number_id: string;
      /** @description The customer as the Pix send named them: phone digits or a BSUID */
      to: string;
      /** @enum {string} */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /** @enum {string} */
      payment_status: "pending" | "captured" | "failed";
      payment_timestamp: number | null;
      description: string | null;
      goods_type: string;
      /** @enum {string} */
      currency: "BRL";
      template: string;
      client_ref: string | null;
      items: {
        name: string;
        /** @description Unit amount, cents */
        amount: number;
        quantity: number;
        retailer_id: string | null;
      }[];
      /** @description Cents */
      subtotal: number;
      /** @description Cents */
      tax: number;
      /** @description Cents */
      total_amount: number;
      /** @description The payment methods offered */
      payment_methods: ("pix" | "payment_link" | "boleto")[];
      /** @description The order_details message */
      message_id: string;
      created_at: string;
      updated_at: string;
      /** @description Oldest first */
      history: components["schemas"]["OrderHistoryEntryOut"][];
    };
    OrderHistoryEntryOut: {
      /** @description The message's id (as in message.status) */
      message_id: string;
      /** @enum {string} */
      kind: "order_details" | "order_status";
      /**
       * @description What carried it: the interactive message, or a template (the Pix send's order_details, or an order-status template)
       * @enum {string}
       */
      form: "interactive" | "template";
      /** @description The template's name when a template carried it (the Pix send's, or the order-status template) */
      template: string | null;
      /** @enum {string} */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description Null: the message carried no payment object
       * @enum {string|null}
       */
      payment_status: "pending" | "captured" | "failed" | null;
      payment_timestamp: number | null;
      description: string | null;
      /** @description When the provider accepted the message (ISO 8601) */
      sent_at: string;
      /** @enum {string} */
      origin: "api" | "panel";
      /**
       * @description The provider's last status of the message; null until it reports one
       * @enum {string|null}
       */
      message_status: "sent" | "delivered" | "read" | "failed" | null;
      /** @description Only when message_status is failed */
      error: {
        code: number | null;
        message: string | null;
        reason: string | null;
      } | null;
    };
    OrderStatusUpdateOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        reference_id: string;
        /** @description The order_status message; its statuses arrive as message.status */
        message_id: string;
        /** @enum {string} */
        order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
        /** @enum {string} */
        payment_status: "pending" | "captured" | "failed";
        to: string;
        phone_number_id: string;
      };
    };
    /**
     * @example {
     *       "order_status": "processing",
     *       "payment_status": "captured",
     *       "payment_timestamp": 1780001000,
     *       "description": "Separando os itens"
     *     }
     * @example {
     *       "order_status": "shipped",
     *       "description": "Enviado pelos Correios"
     *     }
     * @example {
     *       "order_status": "canceled",
     *       "payment_status": "failed"
     *     }
     * @example {
     *       "order_status": "completed",
     *       "description": "Pedido entregue",
     *       "template": {
     *         "name": "status_do_pedido",
     *         "language": "pt_BR",
     *         "variables": [
     *           "Maria"
     *         ]
     *       }
     *     }
     */
    OrderStatusIn: {
      /**
       * @description The order's new status, shown on the customer's card
       * @enum {string}
       */
      order_status: "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description The payment's status as the PSP reports it; absent: no payment object is sent and it is kept
       * @enum {string}
       */
      payment_status?: "pending" | "captured" | "failed";
      /** @description A note shown with the status (Meta's order.description) */
      description?: string;
      /** @description When the payment happened, Unix seconds; only with payment_status */
      payment_timestamp?: number;
      /** @description The message body; default a Portuguese sentence per status */
      text?: string;
      /** @description Send the status as Meta's order-status template instead of the interactive `order_status` message: needed outside the customer's 24-hour window, allowed inside it. The template form carries the order's status and `description` only: no `payment_status`, `payment_timestamp` or `text` */
      template?: {
        /** @description The template's name (sub-category ORDER_STATUS, approved) */
        name: string;
        /** @default pt_BR */
        language?: string;
        /** @description Filled in order into {{1}}, {{2}}, ... of the template body */
        variables?: string[];
      };
    };
    MediaUploadOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description Meta's media id: send it as `media.media_id` from the same business number */
        media_id: string;
        /** @description The business number it was uploaded to */
        phone_number_id: string;
        /** @description The type read from the file's bytes (without parameters) */
        mime_type: string;
        /** @description Bytes */
        size: number;
        /**
         * @description The WhatsApp media type this file is sent as (WebP is a sticker only)
         * @enum {string}
         */
        type: "image" | "video" | "audio" | "document" | "sticker";
        /** @description Lowercase hex SHA-256 of the bytes */
        sha256: string;
        /** @description The file part's name, as kept (null when none was given) */
        filename: string | null;
        /** @description ISO 8601 UTC: Meta keeps an uploaded media 30 days */
        expires_at: string;
      };
    };
    MediaUploadIn: {
      /** @description The business number to upload to (the account's default when absent); a media is sent from this number only */
      phone_number_id?: string;
      /**
       * Format: binary
       * @description The file, one part, with its `Content-Type` (the declared type; `application/octet-stream` lets the bytes decide) and file name. JPEG or PNG image (5 MB), MP4 or 3GP video (16 MB), AAC, AMR, MP3, M4A or OGG Opus audio (16 MB), PDF, Word, Excel, PowerPoint or text document (100 MB), WebP sticker (100 KB static, 500 KB animated)
       */
      file: string;
    };
    ValidateOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description Digits only, with country code when valid; a BSUID as given */
        to: string;
        valid: boolean;
        /**
         * @description What `to` is: a phone number, or a WhatsApp business-scoped user id (BSUID; country is its prefix)
         * @enum {string}
         */
        kind: "phone" | "bsuid";
        country: string | null;
        /** @description mobile, fixed_line, fixed_line_or_mobile, voip, toll_free, ... when known */
        type: string | null;
        e164: string | null;
        national_format: string | null;
      };
    };
    /**
     * @example {
     *       "to": "(11) 98765-4321",
     *       "country": "BR"
     *     }
     */
    ValidateIn: {
      to: string;
      /** @description ISO 3166-1 alpha-2; BR when absent and the number has no country code */
      country?: string | null;
    };
    WindowOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The contact: digits of a phone number, or a BSUID as given */
        to: string;
        /** @description The business number checked; null when the account has none (then `open` is false) */
        phone_number_id: string | null;
        open: boolean;
        /** @description ISO 8601 UTC */
        expires_at: string | null;
        /** @description ISO 8601 UTC */
        last_inbound_at: string | null;
      };
    };
    ConversationOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The customer: phone digits or a BSUID, as given */
        recipient: string;
        phone_number_id: string;
        /** @description The 24-hour window, as GET /window/{to} says it */
        window: {
          open: boolean;
          /** @description ISO 8601 UTC */
          expires_at: string | null;
          /** @description ISO 8601 UTC */
          last_inbound_at: string | null;
        };
        handler: components["schemas"]["ConversationHandler"];
        /**
         * @description `open` (the default), or `closed` in the panel's inbox
         * @enum {string}
         */
        status: "open" | "closed";
        /** @description The panel user it is assigned to; null when none */
        assignee: {
          /** @description The panel user's id */
          id: string;
          /** @description The panel user's name */
          name: string;
        } | null;
        thread: components["schemas"]["ConversationThread"];
      };
    };
    ConversationHandler: {
      /**
       * @description `bot`: the integrator's automation answers (the default); `human`: a person does, and a bot should stay quiet. A person's hold goes back to `bot` after the account's timeout (24 h by default) without a new handover
       * @enum {string}
       */
      value: "bot" | "human";
      /** @description ISO 8601 UTC; the last handover; null when there was none */
      since: string | null;
      /** @description What the last handover said (why a person was asked for) */
      note: string | null;
    };
    ConversationThread: {
      /**
       * @description `gateway`: this gateway's app holds the conversation (the customer's messages come as `message.received`); `another_app`: another app holds it (Meta's Business AI agent, say): the customer's messages still reach version-2 integrations, with `standby: true`; `released`: the gateway released it, and Meta's entry-point routing picks the next responder when the customer writes again
       * @enum {string}
       */
      holder: "gateway" | "another_app" | "released";
      /** @description Meta's role of the holder when known (`ai_agent`, `escalation_partner`, ...); null when nothing said it */
      role: string | null;
      /** @description ISO 8601 UTC; when the gateway learnt it; null when nothing is known (then holder is `gateway`) */
      since: string | null;
      /**
       * @description What told it: the customer's last message (`message`, on Meta's `messages` field; `standby`), Meta's `messaging_handovers` notification (`control_passed`, `control_taken`) or the gateway's own thread control (`pass`, `take`, `release`); null when nothing is known
       * @enum {string|null}
       */
      source: "message" | "standby" | "control_passed" | "control_taken" | "pass" | "take" | "release" | null;
    };
    HandoverOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The customer: phone digits or a BSUID, as given */
        recipient: string;
        phone_number_id: string;
        handler: components["schemas"]["ConversationHandler"];
      };
    };
    /**
     * @example {
     *       "to": "human",
     *       "note": "cliente pediu para falar com um atendente"
     *     }
     * @example {
     *       "to": "bot"
     *     }
     */
    HandoverIn: {
      /** @description The business number; the account's default otherwise */
      phone_number_id?: string;
      /**
       * @description `human`: the bot asks for a person; `bot`: the person gives it back
       * @enum {string}
       */
      to: "bot" | "human";
      /** @description Why, for the person who picks it up */
      note?: string;
    };
    ThreadControlOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The customer: phone digits or a BSUID, as given */
        recipient: string;
        phone_number_id: string;
        /** @enum {string} */
        action: "pass" | "take" | "release";
        thread: components["schemas"]["ConversationThread"];
      };
    };
    /**
     * @example {
     *       "action": "pass",
     *       "target_role": "ai_agent",
     *       "metadata": "pedido 1234 resolvido"
     *     }
     * @example {
     *       "action": "take"
     *     }
     * @example {
     *       "action": "release"
     *     }
     */
    ThreadControlIn: {
      /** @description The business number; the account's default otherwise */
      phone_number_id?: string;
      /**
       * @description `pass`: hand the conversation to Meta's Business AI agent (`target_role: ai_agent`) or, without target_role, to the number's escalation partner; `take`: take it (only the escalation partner may); `release`: let it go (Meta's entry-point routing decides who answers the customer's next message)
       * @enum {string}
       */
      action: "pass" | "take" | "release";
      /**
       * @description Only with `pass`: `ai_agent` passes to Meta's Business AI agent
       * @enum {string}
       */
      target_role?: "ai_agent";
      /** @description Only with `pass`: free text Meta forwards to the new holder in its notification */
      metadata?: string;
    };
    NumberListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        numbers: components["schemas"]["NumberOut"][];
      };
    };
    NumberOut: {
      phone_number_id: string;
      waba_id: string;
      display_number: string;
      /** @description Sends without phone_number_id leave from it */
      is_default: boolean;
      /** @description The pace every send from it keeps (set by the operator, or Meta) */
      messaging_rate_per_second: number;
      /**
       * @description `on`: its MARKETING template sends (campaigns included) go through Meta's Marketing Messages API; every other category stays on the Cloud API
       * @enum {string}
       */
      marketing_messages: "off" | "on";
    };
    NumberDetailOut: {
      /** @enum {boolean} */
      success: true;
      data: components["schemas"]["NumberOut"];
    };
    /**
     * @example {
     *       "marketing_messages": "on"
     *     }
     */
    NumberSettingsIn: {
      /**
       * @description `on` once the business is onboarded to Meta's Marketing Messages API; a refusal there is returned as is, never resent through /messages
       * @enum {string}
       */
      marketing_messages: "off" | "on";
    };
    TemplateCatalogueOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        templates: components["schemas"]["TemplateItemOut"][];
      };
    };
    DeliveryListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        deliveries: {
          id: number;
          /** @enum {string} */
          event:
            | "message.status"
            | "message.received"
            | "account.update"
            | "order.updated"
            | "conversation.handover"
            | "conversation.updated";
          /** @enum {string} */
          status: "pending" | "delivering" | "delivered" | "failed";
          /** @description Attempts made so far (X-PT-Attempt of the last one) */
          attempts: number;
          next_attempt_at: string | null;
          last_status_code: number | null;
          /** @description Body the endpoint answered on the last attempt, also on 2xx */
          last_error: string | null;
          last_error_kind: string | null;
          created_at: string;
          delivered_at: string | null;
          occurred_at: string;
          endpoint_url: string;
        }[];
        next_before_id: number | null;
      };
    };
    RetryFailedOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        requeued: number;
      };
    };
    DeliveryDetailOut: {
      /** @enum {boolean} */
      success: true;
      data: components["schemas"]["DeliveryOut"];
    };
    RetryOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        id: number;
        /** @enum {string} */
        status: "pending";
        next_attempt: number;
      };
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "integrations": [
     *           {
     *             "id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *             "url": "https://loja.example.com.br/webhooks/whatsapp",
     *             "events": [
     *               "message.status",
     *               "message.received"
     *             ],
     *             "active": true,
     *             "signature_scheme": "pt",
     *             "deliver_in_order": false,
     *             "payload_version": 2,
     *             "disabled_at": null,
     *             "disabled_reason": null,
     *             "previous_secret_expires_at": null,
     *             "created_at": "2026-11-30T12:00:00.000Z",
     *             "updated_at": "2026-11-30T12:00:00.000Z"
     *           }
     *         ],
     *         "next_cursor": null
     *       }
     *     }
     */
    IntegrationListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        integrations: components["schemas"]["Integration"][];
        /** @description Repeat with `cursor=next_cursor` until it is null */
        next_cursor: string | null;
      };
    };
    Integration: {
      id: string;
      url: string;
      events: string[];
      /** @description False: paused by the account (new events create no deliveries for it) */
      active: boolean;
      /** @enum {string} */
      signature_scheme: "pt" | "standard-webhooks";
      deliver_in_order: boolean;
      /**
       * @description Which `message.received` body it gets: 1, the contract's (spec 6.3); 2, the same members followed by version 2's (`interactive` with the id of the list row or reply button tapped, `button`, `location`, `contacts`, `reaction`, `referral`, `forwarded`, `media_sha256`, `media_voice`)
       * @enum {integer}
       */
      payload_version: 1 | 2;
      /** @description Set when the gateway disabled it (every attempt failed for the configured time): re-enable it */
      disabled_at: string | null;
      /** @description Why, in Portuguese */
      disabled_reason: string | null;
      /** @description Until then deliveries are also signed with the secret a rotation replaced; null when none */
      previous_secret_expires_at: string | null;
      created_at: string;
      updated_at: string;
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *         "url": "https://loja.example.com.br/webhooks/whatsapp",
     *         "events": [
     *           "message.status",
     *           "message.received"
     *         ],
     *         "active": true,
     *         "signature_scheme": "pt",
     *         "deliver_in_order": false,
     *         "payload_version": 2,
     *         "disabled_at": null,
     *         "disabled_reason": null,
     *         "previous_secret_expires_at": null,
     *         "created_at": "2026-11-30T12:00:00.000Z",
     *         "updated_at": "2026-11-30T12:00:00.000Z",
     *         "signing_secret": "whsec_Q2hhdmUtZGUtZXhlbXBsby1uYW8tdXNlLWVtLXByb2R1Y2Fv"
     *       }
     *     }
     */
    IntegrationWithSecretOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        id: string;
        url: string;
        events: string[];
        /** @description False: paused by the account (new events create no deliveries for it) */
        active: boolean;
        /** @enum {string} */
        signature_scheme: "pt" | "standard-webhooks";
        deliver_in_order: boolean;
        /**
         * @description Which `message.received` body it gets: 1, the contract's (spec 6.3); 2, the same members followed by version 2's (`interactive` with the id of the list row or reply button tapped, `button`, `location`, `contacts`, `reaction`, `referral`, `forwarded`, `media_sha256`, `media_voice`)
         * @enum {integer}
         */
        payload_version: 1 | 2;
        /** @description Set when the gateway disabled it (every attempt failed for the configured time): re-enable it */
        disabled_at: string | null;
        /** @description Why, in Portuguese */
        disabled_reason: string | null;
        /** @description Until then deliveries are also signed with the secret a rotation replaced; null when none */
        previous_secret_expires_at: string | null;
        created_at: string;
        updated_at: string;
        /** @description The signing secret, shown only in this answer (creation, rotation): keep it now; it is never shown again over the API */
        signing_secret: string;
      };
    };
    /**
     * @example {
     *       "url": "https://loja.example.com.br/webhooks/whatsapp",
     *       "events": [
     *         "message.status",
     *         "message.received"
     *       ]
     *     }
     * @example {
     *       "url": "https://loja.example.com.br/webhooks/standard",
     *       "events": [
     *         "message.status"
     *       ],
     *       "signature_scheme": "standard-webhooks",
     *       "deliver_in_order": true
     *     }
     * @example {
     *       "url": "https://loja.example.com.br/webhooks/v1",
     *       "events": [
     *         "message.received"
     *       ],
     *       "payload_version": 1
     *     }
     */
    IntegrationCreateIn: {
      /** @description The endpoint that receives the signed POSTs: https:// on a public address (a loopback, private, link-local or reserved address, `localhost`, user and password in the URL are refused: 422 `value_error` at `url`) */
      url: string;
      /** @description Events delivered to it (repeats are ignored): `message.status`, `message.received`; `account.update`, `order.updated`, `conversation.handover` and `conversation.updated` only when chosen */
      events: (
        | "message.status"
        | "message.received"
        | "account.update"
        | "order.updated"
        | "conversation.handover"
        | "conversation.updated"
      )[];
      /**
       * @description False: saved paused
       * @default true
       */
      active?: boolean;
      /**
       * @description `pt`: X-PT-Timestamp and X-PT-Signature (spec 5); `standard-webhooks`: webhook-id, webhook-timestamp and webhook-signature (standardwebhooks.com), the secret shown as `whsec_` plus base64
       * @default pt
       * @enum {string}
       */
      signature_scheme?: "pt" | "standard-webhooks";
      /**
       * @description Ordered delivery per message (and per contact's inbound messages): a later event waits until the earlier one is delivered or failed
       * @default false
       */
      deliver_in_order?: boolean;
      /**
       * @description Which `message.received` body it gets: 1, the contract's (spec 6.3); 2, the same members followed by version 2's (`interactive` with the id of the list row or reply button tapped, `button`, `location`, `contacts`, `reaction`, `referral`, `forwarded`, `media_sha256`, `media_voice`). Absent: 2
       * @default 2
       * @enum {integer}
       */
      payload_version?: 1 | 2;
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *         "url": "https://loja.example.com.br/webhooks/whatsapp",
     *         "events": [
     *           "message.status",
     *           "message.received"
     *         ],
     *         "active": true,
     *         "signature_scheme": "pt",
     *         "deliver_in_order": false,
     *         "payload_version": 2,
     *         "disabled_at": null,
     *         "disabled_reason": null,
     *         "previous_secret_expires_at": null,
     *         "created_at": "2026-11-30T12:00:00.000Z",
     *         "updated_at": "2026-11-30T12:00:00.000Z"
     *       }
     *     }
     */
    IntegrationOut: {
      /** @enum {boolean} */
      success: true;
      data: components["schemas"]["Integration"];
    };
    /**
     * @example {
     *       "events": [
     *         "message.status",
     *         "message.received",
     *         "account.update"
     *       ]
     *     }
     * @example {
     *       "active": false
     *     }
     * @example {
     *       "payload_version": 2
     *     }
     */
    IntegrationUpdateIn: {
      /** @description The endpoint that receives the signed POSTs: https:// on a public address (a loopback, private, link-local or reserved address, `localhost`, user and password in the URL are refused: 422 `value_error` at `url`) */
      url?: string;
      /** @description Events delivered to it (repeats are ignored): `message.status`, `message.received`; `account.update`, `order.updated`, `conversation.handover` and `conversation.updated` only when chosen */
      events?: (
        | "message.status"
        | "message.received"
        | "account.update"
        | "order.updated"
        | "conversation.handover"
        | "conversation.updated"
      )[];
      /** @description False pauses it, true resumes it */
      active?: boolean;
      /**
       * @description `pt`: X-PT-Timestamp and X-PT-Signature (spec 5); `standard-webhooks`: webhook-id, webhook-timestamp and webhook-signature (standardwebhooks.com), the secret shown as `whsec_` plus base64
       * @enum {string}
       */
      signature_scheme?: "pt" | "standard-webhooks";
      /** @description Ordered delivery per message (and per contact's inbound messages): a later event waits until the earlier one is delivered or failed */
      deliver_in_order?: boolean;
      /**
       * @description Which `message.received` body it gets: 1, the contract's (spec 6.3); 2, the same members followed by version 2's (`interactive` with the id of the list row or reply button tapped, `button`, `location`, `contacts`, `reaction`, `referral`, `forwarded`, `media_sha256`, `media_voice`). Absent: unchanged
       * @enum {integer}
       */
      payload_version?: 1 | 2;
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *         "deleted": true,
     *         "deliveries_removed": 42
     *       }
     *     }
     */
    IntegrationDeleteOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        id: string;
        /** @enum {boolean} */
        deleted: true;
        /** @description Its deliveries, removed with it (pending ones are never attempted) */
        deliveries_removed: number;
      };
    };
    /**
     * @example {}
     * @example {
     *       "overlap_hours": 0
     *     }
     */
    IntegrationRotateIn: {
      /**
       * @description For how many hours deliveries are also signed with the secret being replaced (X-PT-Signature-Previous, or a second `v1,` value in webhook-signature); 0 ends it at once (a leaked secret)
       * @default 24
       */
      overlap_hours?: number;
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "integration_id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *         "url": "https://loja.example.com.br/webhooks/whatsapp",
     *         "active": true,
     *         "disabled_at": null,
     *         "disabled_reason": null,
     *         "waiting_deliveries": 0,
     *         "last_hour": {
     *           "since": "2026-11-30T11:00:00.000Z",
     *           "attempts": 412,
     *           "succeeded": 409,
     *           "failed": 3,
     *           "success_rate": 0.9927,
     *           "latency_ms": {
     *             "p50": 84,
     *             "p95": 310,
     *             "p99": 1210
     *           },
     *           "last_error": {
     *             "at": "2026-11-30T11:42:07.118Z",
     *             "status_code": 503,
     *             "error_kind": "http_status",
     *             "message": "O endpoint respondeu com um status fora da faixa 2xx.",
     *             "body": "Service Unavailable"
     *           }
     *         },
     *         "last_day": {
     *           "since": "2026-11-29T12:00:00.000Z",
     *           "attempts": 9120,
     *           "succeeded": 9101,
     *           "failed": 19,
     *           "success_rate": 0.9979,
     *           "latency_ms": {
     *             "p50": 79,
     *             "p95": 280,
     *             "p99": 940
     *           },
     *           "last_error": {
     *             "at": "2026-11-30T11:42:07.118Z",
     *             "status_code": 503,
     *             "error_kind": "http_status",
     *             "message": "O endpoint respondeu com um status fora da faixa 2xx.",
     *             "body": "Service Unavailable"
     *           }
     *         }
     *       }
     *     }
     */
    IntegrationHealthOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        integration_id: string;
        url: string;
        /** @description False: paused by the account (new events create no deliveries for it) */
        active: boolean;
        /** @description Set when the gateway disabled it: every attempt failed for the configured time (default 5 days) */
        disabled_at: string | null;
        /** @description Why, in Portuguese, with the last error */
        disabled_reason: string | null;
        /** @description Deliveries waiting for the re-enable (0 while enabled) */
        waiting_deliveries: number;
        last_hour: {
          /** @description Start of the window (exclusive) */
          since: string;
          attempts: number;
          /** @description Attempts answered 2xx */
          succeeded: number;
          failed: number;
          /** @description succeeded / attempts (4 decimals); null without attempts */
          success_rate: number | null;
          /** @description Duration of the attempts (request sent to answer, or to the error), in ms; null without attempts */
          latency_ms: {
            p50: number;
            p95: number;
            p99: number;
          } | null;
          /** @description The window's most recent failed attempt; null when none failed */
          last_error: {
            /** @description When the attempt started */
            at: string;
            /** @description HTTP status answered; null when there was no answer */
            status_code: number | null;
            /** @description Why it failed: http_status, timeout, connection_refused, dns, tls, ... */
            error_kind: string;
            /** @description Portuguese explanation of error_kind */
            message: string;
            /** @description The first 500 characters of what the endpoint answered */
            body: string | null;
          } | null;
        };
        last_day: {
          /** @description Start of the window (exclusive) */
          since: string;
          attempts: number;
          /** @description Attempts answered 2xx */
          succeeded: number;
          failed: number;
          /** @description succeeded / attempts (4 decimals); null without attempts */
          success_rate: number | null;
          /** @description Duration of the attempts (request sent to answer, or to the error), in ms; null without attempts */
          latency_ms: {
            p50: number;
            p95: number;
            p99: number;
          } | null;
          /** @description The window's most recent failed attempt; null when none failed */
          last_error: {
            /** @description When the attempt started */
            at: string;
            /** @description HTTP status answered; null when there was no answer */
            status_code: number | null;
            /** @description Why it failed: http_status, timeout, connection_refused, dns, tls, ... */
            error_kind: string;
            /** @description Portuguese explanation of error_kind */
            message: string;
            /** @description The first 500 characters of what the endpoint answered */
            body: string | null;
          } | null;
        };
      };
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "integration_id": "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
     *         "was_disabled": true,
     *         "resumed": 1520
     *       }
     *     }
     */
    IntegrationEnableOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        integration_id: string;
        /** @description False: it was not disabled, nothing changed */
        was_disabled: boolean;
        /** @description Waiting deliveries put back in the queue, each with a fresh budget of attempts */
        resumed: number;
      };
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "id": "3f1c2b7a-8d4e-4f5a-9b6c-7d8e9f0a1b2c",
     *         "status": "running",
     *         "since": "2026-11-20T03:00:00.000Z",
     *         "until": "2026-11-21T03:00:00.000Z",
     *         "event": null,
     *         "statuses": [
     *           "failed",
     *           "delivered"
     *         ],
     *         "integration_id": null,
     *         "matched": 1250,
     *         "queued": 500,
     *         "created_at": "2026-11-27T12:00:00.000Z",
     *         "started_at": "2026-11-27T12:00:00.150Z",
     *         "updated_at": "2026-11-27T12:00:01.020Z",
     *         "completed_at": null,
     *         "requested_by": "api_key:7a9e6c3d-2b1f-4e8a-9c0d-5e6f7a8b9c0d"
     *       }
     *     }
     */
    DeliveryReplayOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @description The replay's id: follow it with GET /deliveries/replays/{replay_id} */
        id: string;
        /**
         * @description `pending` until its job starts, `running` while batches are re-queued, then `completed`
         * @enum {string}
         */
        status: "pending" | "running" | "completed";
        since: string;
        /** @description The range's end as applied (a future `until` is now) */
        until: string;
        event: string | null;
        statuses: ("failed" | "delivered")[];
        integration_id: string | null;
        /** @description Deliveries that matched when the job started; null while `pending` */
        matched: number | null;
        /** @description Deliveries put back in the queue so far (each gets a new attempt, same delivery_id) */
        queued: number;
        created_at: string;
        started_at: string | null;
        updated_at: string;
        completed_at: string | null;
        /** @description Who asked: `api_key:<id>` or `panel:<e-mail>` */
        requested_by: string;
      };
    };
    /**
     * @example {
     *       "since": "2026-11-20T00:00:00-03:00",
     *       "until": "2026-11-21T00:00:00-03:00"
     *     }
     * @example {
     *       "since": "2026-11-20T09:00:00Z",
     *       "until": "2026-11-20T12:00:00Z",
     *       "event": "message.status",
     *       "status": "failed",
     *       "integration_id": "9b2f4c1e-3a7d-4e8b-9c0d-1f2e3a4b5c6d"
     *     }
     */
    DeliveryReplayIn: {
      /**
       * Format: date-time
       * @description Deliveries created at or after this instant (ISO 8601 with an offset: `2026-11-01T00:00:00-03:00`)
       */
      since: string;
      /**
       * Format: date-time
       * @description Deliveries created before this instant; a future one, or none, counts as now. At most 31 days after `since` (ISO 8601 with an offset: `2026-11-01T00:00:00-03:00`)
       */
      until?: string;
      /**
       * @description Only this event
       * @enum {string}
       */
      event?:
        | "message.status"
        | "message.received"
        | "account.update"
        | "order.updated"
        | "conversation.handover"
        | "conversation.updated";
      /**
       * @description Only deliveries in this status; both `failed` and `delivered` when absent
       * @enum {string}
       */
      status?: "failed" | "delivered";
      /**
       * Format: uuid
       * @description Only the deliveries of this integration (one of the account's)
       */
      integration_id?: string;
    };
    EventTypeListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        event_types: components["schemas"]["EventTypeOut"][];
      };
    };
    EventTypeOut: {
      /**
       * @description The event's name: `event` of the body and `X-PT-Event`
       * @enum {string}
       */
      name:
        | "message.status"
        | "message.received"
        | "account.update"
        | "order.updated"
        | "conversation.handover"
        | "conversation.updated";
      /** @description What the event means, in Portuguese */
      description: string;
      /** @description JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of the signed body: the document's schema with each component it uses put in place of its `$ref` (no reference left) */
      schema: {
        [key: string]: unknown;
      };
      /** @description An example body, valid against `schema` */
      example: {
        [key: string]: unknown;
      };
    };
    CampaignDetailOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        id: string;
        name: string;
        /** @enum {string} */
        status: "draft" | "scheduled" | "running" | "paused" | "completed" | "cancelled";
        phone_number_id: string;
        template: string;
        language: string;
        template_category: string | null;
        start_at: string | null;
        created_at: string;
        started_at: string | null;
        completed_at: string | null;
        cancelled_at: string | null;
        /** @description Why the gateway paused the campaign by itself (Meta reported that the number's quality dropped to low, or that the account was restricted, disabled, banned or disconnected), in Portuguese; null when a person paused it or it is not paused. Added in 2026 */
        pause_reason: string | null;
        /** @description Rows given */
        total_rows: number;
        /** @description Rows that passed validation: the campaign's recipients */
        accepted_recipients: number;
        rejected_count: number;
        progress: components["schemas"]["CampaignProgressOut"];
        /** @description The number's rate in force (lower while it backs off after a 130429) */
        rate_per_second: number;
        /** @description Time the queued recipients need at that rate; null when none are left */
        eta_seconds: number | null;
        /** @description ISO 8601 UTC; running or scheduled campaigns only */
        estimated_completion_at: string | null;
        estimated_cost: components["schemas"]["CampaignCostEstimateOut"];
        rejected_rows: components["schemas"]["CampaignRejectedRowOut"][];
        running_cost: components["schemas"]["CampaignRunningCostOut"];
      };
    };
    /** @description Recipients by outcome, each counted once in its furthest state (a read message is in `read`, not in `delivered`) */
    CampaignProgressOut: {
      queued: number;
      sending: number;
      sent: number;
      delivered: number;
      read: number;
      failed: number;
      skipped: number;
      cancelled: number;
    };
    /** @description An upper bound: every accepted recipient charged once. Meta charges only delivered messages, lowers utility and authentication rates by volume tier, and until 30 Sep 2026 did not charge utility templates inside an open customer-service window */
    CampaignCostEstimateOut: {
      /** @enum {string} */
      currency: "BRL";
      /** @description accepted_recipients × rate_brl */
      amount_brl: string;
      /** @description The rate card's price of one charged message of `category` when the campaign starts */
      rate_brl: string;
      /** @description Pricing category of the template (marketing when the rate card has no rate for it) */
      category: string;
      recipients: number;
    };
    CampaignRejectedRowOut: {
      /** @description 1-based position in the list (in a CSV, the data row: the header is not counted) */
      row: number;
      to: string;
      /** @description invalid_recipient, duplicate_recipient, invalid_parameter, csv_extra_fields or a template pre-check code (template_params_mismatch, variable_too_long, ...) */
      code: string;
      /** @description Portuguese sentence */
      message: string;
    };
    /** @description What the campaign's messages cost so far, from the pricing of their status webhooks */
    CampaignRunningCostOut: {
      /** @enum {string} */
      currency: "BRL";
      /** @description Estimated cost of the messages Meta charged so far, at the rate card's rates */
      amount_brl: string;
      /** @description Messages Meta reported a pricing for */
      priced_messages: number;
      /** @description Of them, pricing.type `regular` and not failed afterwards */
      charged_messages: number;
      /** @description Priced messages that failed afterwards: Meta charges only delivered ones */
      failed_messages: number;
      /** @description Charged messages of a category without a rate, estimated at the marketing rate */
      fallback_messages: number;
    };
    /**
     * @example {
     *       "name": "Black Friday clientes VIP",
     *       "template": "pedido_confirmado",
     *       "language": "pt_BR",
     *       "start_at": "2026-11-27T09:00:00-03:00",
     *       "recipients": [
     *         {
     *           "to": "5511987654321",
     *           "variables": [
     *             "Maria",
     *             "12345",
     *             "3"
     *           ],
     *           "header_text": "12345",
     *           "client_ref": "cliente-1"
     *         },
     *         {
     *           "to": "+55 21 99876-5432",
     *           "variables": [
     *             "João",
     *             "12346",
     *             "1"
     *           ],
     *           "header_text": "12346",
     *           "client_ref": "cliente-2"
     *         }
     *       ]
     *     }
     */
    CampaignCreateIn: {
      name: string;
      /** @description Template name (an APPROVED template of the number's WABA) */
      template: string;
      /** @default pt_BR */
      language?: string;
      /** @description Business number that sends; the account's default number otherwise */
      phone_number_id?: string | null;
      /**
       * Format: date-time
       * @description ISO 8601; the campaign waits until then once started (default: at once)
       */
      start_at?: string | null;
      recipients: components["schemas"]["CampaignRecipientIn"][];
    };
    CampaignRecipientIn: {
      /** @description A phone number (any formatting) or a WhatsApp business-scoped user id (BSUID) */
      to: string;
      /** @description Filled in order into {{1}}, {{2}}, ... of the body */
      variables?: string[] | null;
      header_text?: string | null;
      /** @description Header media of this recipient's send */
      header_media?: {
        /**
         * @description The template's header format when absent
         * @enum {string|null}
         */
        type?: "image" | "video" | "document" | null;
        /** @description A PUBLIC http(s) URL the provider downloads without login */
        link: string;
        filename?: string | null;
      } | null;
      button_url_param?: string | null;
      button_url_index?: number | null;
      coupon_code?: string | null;
      /** @description Caller reference, echoed in message.status events */
      client_ref?: string | null;
    };
    CampaignListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        campaigns: components["schemas"]["CampaignOut"][];
        next_before_id: string | null;
      };
    };
    CampaignOut: {
      id: string;
      name: string;
      /** @enum {string} */
      status: "draft" | "scheduled" | "running" | "paused" | "completed" | "cancelled";
      phone_number_id: string;
      template: string;
      language: string;
      template_category: string | null;
      start_at: string | null;
      created_at: string;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      /** @description Why the gateway paused the campaign by itself (Meta reported that the number's quality dropped to low, or that the account was restricted, disabled, banned or disconnected), in Portuguese; null when a person paused it or it is not paused. Added in 2026 */
      pause_reason: string | null;
      /** @description Rows given */
      total_rows: number;
      /** @description Rows that passed validation: the campaign's recipients */
      accepted_recipients: number;
      rejected_count: number;
      progress: components["schemas"]["CampaignProgressOut"];
      /** @description The number's rate in force (lower while it backs off after a 130429) */
      rate_per_second: number;
      /** @description Time the queued recipients need at that rate; null when none are left */
      eta_seconds: number | null;
      /** @description ISO 8601 UTC; running or scheduled campaigns only */
      estimated_completion_at: string | null;
      estimated_cost: components["schemas"]["CampaignCostEstimateOut"];
    };
    CampaignRecipientListOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        recipients: components["schemas"]["CampaignRecipientOut"][];
        next_after_id: number | null;
      };
    };
    CampaignRecipientOut: {
      id: number;
      row: number;
      to: string;
      client_ref: string | null;
      /** @enum {string} */
      status: "queued" | "sending" | "sent" | "delivered" | "read" | "failed" | "skipped" | "cancelled";
      /** @description The message_id of its message.status events */
      message_id: string | null;
      error_code: string | null;
      error_message: string | null;
      attempts: number;
      updated_at: string;
    };
    /**
     * @example {
     *       "accepted_recipients": 4998
     *     }
     */
    CampaignStartIn: {
      /** @description The accepted recipient count the creation reported: the campaign starts only if it is still that */
      accepted_recipients: number;
    };
    /**
     * @example {
     *       "success": true,
     *       "data": {
     *         "currency": "BRL",
     *         "time_zone": "America/Sao_Paulo",
     *         "since": "2026-11-01",
     *         "until": "2026-11-02",
     *         "group_by": [
     *           "day",
     *           "category"
     *         ],
     *         "phone_number_id": null,
     *         "totals": {
     *           "messages": 1250,
     *           "charged_messages": 1050,
     *           "failed_messages": 0,
     *           "cost_brl": "306.9600",
     *           "fallback_messages": 0
     *         },
     *         "rows": [
     *           {
     *             "day": "2026-11-01",
     *             "category": "marketing",
     *             "messages": 900,
     *             "charged_messages": 900,
     *             "failed_messages": 0,
     *             "cost_brl": "301.5000",
     *             "fallback_messages": 0
     *           },
     *           {
     *             "day": "2026-11-01",
     *             "category": "utility",
     *             "messages": 300,
     *             "charged_messages": 100,
     *             "failed_messages": 0,
     *             "cost_brl": "3.6400",
     *             "fallback_messages": 0
     *           },
     *           {
     *             "day": "2026-11-02",
     *             "category": "authentication",
     *             "messages": 50,
     *             "charged_messages": 50,
     *             "failed_messages": 0,
     *             "cost_brl": "1.8200",
     *             "fallback_messages": 0
     *           }
     *         ],
     *         "rates": [
     *           {
     *             "category": "authentication",
     *             "rate_brl": "0.0364",
     *             "effective_from": "2025-07-01",
     *             "scope": "deployment"
     *           },
     *           {
     *             "category": "marketing",
     *             "rate_brl": "0.3350",
     *             "effective_from": "2025-07-01",
     *             "scope": "deployment"
     *           },
     *           {
     *             "category": "utility",
     *             "rate_brl": "0.0364",
     *             "effective_from": "2025-07-01",
     *             "scope": "deployment"
     *           }
     *         ]
     *       }
     *     }
     */
    UsageOut: {
      /** @enum {boolean} */
      success: true;
      data: {
        /** @enum {string} */
        currency: "BRL";
        /**
         * @description Days are São Paulo calendar days; a message counts on the day it was sent
         * @enum {string}
         */
        time_zone: "America/Sao_Paulo";
        since: string;
        until: string;
        group_by: ("day" | "number" | "category" | "type")[];
        phone_number_id: string | null;
        /** @description The whole range */
        totals: {
          /** @description Messages Meta reported a pricing for */
          messages: number;
          /** @description Of them, those Meta charges: pricing.type `regular`, not failed afterwards (sent and not yet delivered counts) */
          charged_messages: number;
          /** @description Priced messages that failed afterwards: Meta charges only delivered messages */
          failed_messages: number;
          /** @description Estimated cost in BRL (reais, four decimals) by the rate card in force on each day */
          cost_brl: string;
          /** @description Charged messages of a category the rate card has no rate for, estimated at the marketing rate */
          fallback_messages: number;
        };
        /** @description One per combination of the group_by values that has priced messages, sorted by them */
        rows: components["schemas"]["UsageRowOut"][];
        /** @description The rate of each category in force on `until` */
        rates: components["schemas"]["UsageRateOut"][];
      };
    };
    UsageRowOut: {
      /** @description With group_by day: São Paulo day of the sends */
      day?: string;
      /** @description With group_by number */
      phone_number_id?: string;
      /** @description With group_by category: Meta's pricing.category, verbatim (null when Meta sent none) */
      category?: string | null;
      /** @description With group_by type: Meta's pricing.type, verbatim (regular, free_customer_service, ...) */
      type?: string | null;
      /** @description Messages Meta reported a pricing for */
      messages: number;
      /** @description Of them, those Meta charges: pricing.type `regular`, not failed afterwards (sent and not yet delivered counts) */
      charged_messages: number;
      /** @description Priced messages that failed afterwards: Meta charges only delivered messages */
      failed_messages: number;
      /** @description Estimated cost in BRL (reais, four decimals) by the rate card in force on each day */
      cost_brl: string;
      /** @description Charged messages of a category the rate card has no rate for, estimated at the marketing rate */
      fallback_messages: number;
    };
    UsageRateOut: {
      category: string;
      /** @description Price of one charged message */
      rate_brl: string;
      effective_from: string;
      /**
       * @description `account`: a rate set for this account alone
       * @enum {string}
       */
      scope: "deployment" | "account";
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  sendMessage: {
    parameters: {
      query?: never;
      header?: {
        /** @description A unique value per message; repeat it (with the same body) after a connection error or a 5xx */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["PublicSendIn"];
      };
    };
    responses: {
      /** @description Sent; `data.message_id` is the id later carried by `message.status`. */
      200: {
        headers: {
          /** @description Present when this is the stored answer of an earlier call with the same Idempotency-Key */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SendResultOut"];
        };
      };
      /** @description Incomplete request, invalid recipient, business number not in the account, or a body that cannot be read (Content-Encoding, cut short). Codes: `invalid_recipient`, `empty_message`, `pix_needs_template`, `no_connected_number`, `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?:
                "invalid_recipient" | "empty_message" | "pix_needs_template" | "no_connected_number" | "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Idempotency-Key in use: still in progress (honour `Retry-After` and repeat with the same key), or used with another body; or a `pix_order` whose `reference_id` an order of this account already has (nothing sent). Codes: `idempotency_in_flight`, `idempotency_conflict`, `idempotency_legacy_unverified`, `order_reference_taken`. */
      409: {
        headers: {
          /** @description With `idempotency_in_flight` (always): seconds until the key can settle even if the call holding it never ends (its process's lease running out, or the reservation going stale, whichever comes first); repeat with the same key after it. The call usually ends sooner. */
          "Retry-After"?: number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?:
                | "idempotency_in_flight"
                | "idempotency_conflict"
                | "idempotency_legacy_unverified"
                | "order_reference_taken";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The provider (or the service's own pre-check) refused the send — error envelope, codes: `outside_24h_window`, `recipient_unreachable`, `recipient_opted_out`, `template_params_mismatch`, `template_not_found`, `template_paused`, `invalid_template`, `marketing_experiment`, `delivery_limited`, `payment_issue`, `account_restricted`, `account_disabled`, `variable_too_long`, `variable_bad_format`, `invalid_pix_order`, `template_required_header_media`, `template_header_mismatch`, `template_format_unsupported`, `invalid_otp`, `provider_rejected`, `media_unavailable`, `media_type_mismatch`, `reaction_target_not_found`, `message_too_old`; or the body or the Idempotency-Key header is invalid — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?:
                    | "outside_24h_window"
                    | "recipient_unreachable"
                    | "recipient_opted_out"
                    | "template_params_mismatch"
                    | "template_not_found"
                    | "template_paused"
                    | "invalid_template"
                    | "marketing_experiment"
                    | "delivery_limited"
                    | "payment_issue"
                    | "account_restricted"
                    | "account_disabled"
                    | "variable_too_long"
                    | "variable_bad_format"
                    | "invalid_pix_order"
                    | "template_required_header_media"
                    | "template_header_mismatch"
                    | "template_format_unsupported"
                    | "invalid_otp"
                    | "provider_rejected"
                    | "media_unavailable"
                    | "media_type_mismatch"
                    | "reaction_target_not_found"
                    | "message_too_old";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description Template lookup unavailable, provider unavailable, or a send the provider did not confirm (never resent with that key); repeat with the same Idempotency-Key. Codes: `templates_unavailable`, `send_unconfirmed`, `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "templates_unavailable" | "send_unconfirmed" | "provider_unavailable";
            };
          };
        };
      };
    };
  };
  getMessage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The message's id (the send's message_id, the wamid) */
        message_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The message. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["MessageDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No message with this id in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  markMessageRead: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The `message_id` of a `message.received` event of this account (the contact's message), percent-encoded in the path */
        message_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ReadIn"];
      };
    };
    responses: {
      /** @description Marked read (and the typing indicator shown when asked). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ReadOut"];
        };
      };
      /** @description The path (an invalid %-escape) or the body cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No message received by this account has this id (another account's message included), or the number that received it is no longer the account's. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Refused before Meta (a message over 30 days old) or by Meta — error envelope, codes: `message_too_old`, `account_restricted`, `payment_issue`, `provider_rejected`; or an invalid path or body — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "message_too_old" | "account_restricted" | "payment_issue" | "provider_rejected";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The provider could not be reached or did not confirm; nothing was recorded, repeat the call. Codes: `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "provider_unavailable";
            };
          };
        };
      };
    };
  };
  listOrders: {
    parameters: {
      query?: {
        /** @description Only orders in this order status */
        status?: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
        /** @description Only orders in this payment status */
        payment_status?: "pending" | "captured" | "failed";
        limit?: number;
        /** @description next_before_id of the previous page */
        before_id?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of orders. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["OrderListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `orders:write` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getOrder: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The order's reference_id, as the Pix send gave it (percent-encoded) */
        reference_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The order. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["OrderDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `orders:write` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No order with this reference_id in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  updateOrderStatus: {
    parameters: {
      query?: never;
      header?: {
        /** @description A unique value per message; repeat it (with the same body) after a connection error or a 5xx */
        "Idempotency-Key"?: string;
      };
      path: {
        /** @description The order's reference_id, as the Pix send gave it (percent-encoded) */
        reference_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["OrderStatusIn"];
      };
    };
    responses: {
      /** @description Sent and the order moved; `data.message_id` is the id later carried by `message.status`. */
      200: {
        headers: {
          /** @description Present when this is the stored answer of an earlier call with the same Idempotency-Key */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["OrderStatusUpdateOut"];
        };
      };
      /** @description Business number of the order no longer connected, or a request that cannot be read. Codes: `no_connected_number`, `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "no_connected_number" | "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `orders:write` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No order with this reference_id in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Idempotency-Key in use (still in progress, or used with another body), or another status update of this order still in progress (honour `Retry-After`). Codes: `idempotency_in_flight`, `idempotency_conflict`, `idempotency_legacy_unverified`, `order_update_in_flight`. */
      409: {
        headers: {
          /** @description With `idempotency_in_flight` (always): seconds until the key can settle even if the call holding it never ends (its process's lease running out, or the reservation going stale, whichever comes first); repeat with the same key after it. The call usually ends sooner. */
          "Retry-After"?: number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?:
                | "idempotency_in_flight"
                | "idempotency_conflict"
                | "idempotency_legacy_unverified"
                | "order_update_in_flight";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The transition is not allowed, or the provider (or the service's own pre-check) refused the send — error envelope, codes: `order_transition_invalid`, `order_cancel_refused`, `payment_not_supported`, `outside_24h_window`, `invalid_template`, `template_not_found`, `template_paused`, `template_params_mismatch`, `recipient_unreachable`, `recipient_opted_out`, `delivery_limited`, `payment_issue`, `account_restricted`, `account_disabled`, `provider_rejected`; or the body, path or Idempotency-Key header is invalid — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?:
                    | "order_transition_invalid"
                    | "order_cancel_refused"
                    | "payment_not_supported"
                    | "outside_24h_window"
                    | "invalid_template"
                    | "template_not_found"
                    | "template_paused"
                    | "template_params_mismatch"
                    | "recipient_unreachable"
                    | "recipient_opted_out"
                    | "delivery_limited"
                    | "payment_issue"
                    | "account_restricted"
                    | "account_disabled"
                    | "provider_rejected";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description Provider unavailable, or a send the provider did not confirm (never resent with that key; the order did not move); repeat with the same Idempotency-Key. Codes: `send_unconfirmed`, `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "send_unconfirmed" | "provider_unavailable";
            };
          };
        };
      };
    };
  };
  uploadMedia: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "multipart/form-data": components["schemas"]["MediaUploadIn"];
      };
    };
    responses: {
      /** @description Uploaded: Meta's media id, the type read from the bytes, the size and the SHA-256. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["MediaUploadOut"];
        };
      };
      /** @description The business number is not the account's, or the body cannot be read (Content-Encoding, cut short, below the minimum rate). Codes: `no_connected_number`, `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "no_connected_number" | "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `media:write` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description The file passes its type's cap (or the body passes 100 MiB); nothing was created at Meta. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The bytes are of no type WhatsApp carries. Codes: `media_type_unsupported`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "media_type_unsupported";
            };
          };
        };
      };
      /** @description The bytes are of another type than the one declared — error envelope, code: `media_type_mismatch`; or a multipart that does not validate (no `file` part, two files, a field after the file, an invalid `phone_number_id`) — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "media_type_mismatch";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `media_upload_limit`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "media_upload_limit";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description This server has too many media transfers now, or Meta did not confirm the upload; nothing was recorded, send the file again. Codes: `media_busy`, `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "media_busy" | "provider_unavailable";
            };
          };
        };
      };
    };
  };
  getMedia: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A media id this account got from `POST /public/v1/media` or from a `message.received` event (`media_id`) */
        media_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file, streamed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "image/jpeg": string;
          "image/png": string;
          "video/mp4": string;
          "video/3gpp": string;
          "audio/aac": string;
          "audio/amr": string;
          "audio/mpeg": string;
          "audio/mp4": string;
          "audio/ogg": string;
          "image/webp": string;
          "text/plain": string;
          "application/pdf": string;
          "application/msword": string;
          "application/vnd.ms-excel": string;
          "application/vnd.ms-powerpoint": string;
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document": string;
          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": string;
          "application/vnd.openxmlformats-officedocument.presentationml.presentation": string;
          "application/octet-stream": string;
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No media of this account has this id (another account's media included). Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Meta no longer has this media (7 days after it was received, 30 after the upload). Codes: `media_expired`. */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "media_expired";
            };
          };
        };
      };
      /** @description The file Meta reports passes its type's cap. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `media_download_limit`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "media_download_limit";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description This server has too many media transfers now, or Meta could not be reached; repeat the call (`Retry-After`). Codes: `media_busy`, `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "media_busy" | "provider_unavailable";
            };
          };
        };
      };
    };
  };
  validatePhone: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["ValidateIn"];
      };
    };
    responses: {
      /** @description `to` normalized (digits only) and the `valid` flag. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ValidateOut"];
        };
      };
      /** @description The body (Content-Encoding, cut short) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (body); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getWindow: {
    parameters: {
      query?: {
        phone_number_id?: string;
      };
      header?: never;
      path: {
        to: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Window state of the contact on the business number. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["WindowOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (path or query; also a `phone_number_id` that is not one of the account's numbers); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getConversation: {
    parameters: {
      query?: {
        /** @description The business number; the account's default otherwise */
        phone_number_id?: string;
      };
      header?: never;
      path: {
        /** @description The customer: a phone number (any formatting) or a BSUID */
        recipient: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The conversation's window and holder. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ConversationOut"];
        };
      };
      /** @description The path cannot be read, or the account has no number. Codes: `bad_request`, `no_connected_number`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request" | "no_connected_number";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (path or query; also a `phone_number_id` that is not one of the account's numbers); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  handOverConversation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The customer: a phone number (any formatting) or a BSUID */
        recipient: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["HandoverIn"];
      };
    };
    responses: {
      /** @description The conversation's handler now. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HandoverOut"];
        };
      };
      /** @description The path or body cannot be read, the recipient is not valid, or the account has no number. Codes: `bad_request`, `invalid_recipient`, `no_connected_number`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request" | "invalid_recipient" | "no_connected_number";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (path or body; also a `phone_number_id` that is not one of the account's numbers); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  controlConversationThread: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The customer: a phone number (any formatting) or a BSUID */
        recipient: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["ThreadControlIn"];
      };
    };
    responses: {
      /** @description Done at Meta; the conversation's holder now. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ThreadControlOut"];
        };
      };
      /** @description The path or body cannot be read, the recipient is not valid, or the account has no number. Codes: `bad_request`, `invalid_recipient`, `no_connected_number`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request" | "invalid_recipient" | "no_connected_number";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Meta did not permit the action in the conversation's state. Codes: `thread_control_not_permitted`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "thread_control_not_permitted";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Refused by Meta — error envelope, codes: `account_restricted`, `payment_issue`, `provider_rejected`; or an invalid path or body (also a `phone_number_id` that is not one of the account's numbers) — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "account_restricted" | "payment_issue" | "provider_rejected";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`, `rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited" | "rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The provider could not be reached or did not confirm; nothing was recorded, repeat the call. Codes: `provider_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "provider_unavailable";
            };
          };
        };
      };
    };
  };
  listNumbers: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account's numbers. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["NumberListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  updateNumber: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The number's phone_number_id (GET /numbers lists them) */
        phone_number_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["NumberSettingsIn"];
      };
    };
    responses: {
      /** @description The number as saved. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["NumberDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description No business number with this phone_number_id in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (path or body); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listTemplates: {
    parameters: {
      query?: {
        status?: string;
        phone_number_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The catalogue. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["TemplateCatalogueOut"];
        };
      };
      /** @description Invalid status filter, or no connected business number. Codes: `invalid_template_status`, `no_connected_number`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_template_status" | "no_connected_number";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The full catalogue could not be obtained from the provider. Codes: `templates_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "templates_unavailable";
            };
          };
        };
      };
    };
  };
  exportDeliveries: {
    parameters: {
      query: {
        /** @description Deliveries created at or after this instant (ISO 8601 with an offset: `2026-11-01T00:00:00-03:00`) */
        since: string;
        /** @description Deliveries created before this instant; absent: now. At most 31 days after `since` (ISO 8601 with an offset: `2026-11-01T00:00:00-03:00`) */
        until?: string;
        /** @description Only this status, as on the deliveries list */
        status?: "pending" | "delivering" | "delivered" | "failed";
        /** @description Only this event */
        event?:
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Only the deliveries of this integration (one of the account's) */
        integration_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The CSV file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "text/csv": string;
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query; also `since` not before `until` or a range over 31 days (`value_error`)); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listDeliveries: {
    parameters: {
      query?: {
        status?: "pending" | "delivering" | "delivered" | "failed";
        limit?: number;
        before_id?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of deliveries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeliveryListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  retryFailedDeliveries: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description How many deliveries were re-queued. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RetryFailedOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        delivery_id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The delivery, with the signed envelope. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeliveryDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Delivery not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  retryDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        delivery_id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Back in the queue. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RetryOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Delivery not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description The delivery is `pending` or `delivering` — error envelope, code `delivery_not_retryable`; or an invalid path — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "delivery_not_retryable";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listIntegrations: {
    parameters: {
      query?: {
        /** @description `true`: only active integrations; `false`: only paused ones */
        active?: boolean;
        limit?: number;
        /** @description next_cursor of the previous page */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of integrations. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  createIntegration: {
    parameters: {
      query?: never;
      header?: {
        /** @description A unique value per creation; repeat it with the same body after a connection error or a 5xx to get the first answer again, `signing_secret` included, while the key lives (48 hours by default) */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["IntegrationCreateIn"];
      };
    };
    responses: {
      /** @description Registered; the signing secret is shown this once (and to a repeat with its Idempotency-Key). */
      201: {
        headers: {
          /** @description Present when this is the stored answer of an earlier call with the same Idempotency-Key */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationWithSecretOut"];
        };
      };
      /** @description The body (an encoding that does not inflate, or cut short) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Idempotency-Key in use: still in progress (honour `Retry-After` and repeat with the same key), or used with another body or operation. Codes: `idempotency_in_flight`, `idempotency_conflict`, `idempotency_legacy_unverified`. */
      409: {
        headers: {
          /** @description With `idempotency_in_flight` (always): seconds until the key can settle even if the call holding it never ends (its process's lease running out, or the reservation going stale, whichever comes first); repeat with the same key after it. The call usually ends sooner. */
          "Retry-After"?: number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "idempotency_in_flight" | "idempotency_conflict" | "idempotency_legacy_unverified";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The account has as many integrations as it may (`integration_limit_reached`, error envelope); or the body or the Idempotency-Key header is invalid, or the URL one the panel would refuse — `HTTPValidationError` (`value_error` at `url`, `ctx.reason`: `scheme` for anything but https://, `address_refused` for a loopback, private, link-local or reserved address or `localhost`, `userinfo`, `invalid_url`, `url_taken`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "integration_limit_reached";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The deployment gave the API no key ring (SECRETS_KEYS), or the integration's stored secret cannot be opened. Codes: `service_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "service_unavailable";
            };
          };
        };
      };
    };
  };
  getIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The integration. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path: an id that is not a UUID); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  deleteIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationDeleteOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path: an id that is not a UUID); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  updateIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["IntegrationUpdateIn"];
      };
    };
    responses: {
      /** @description The integration as saved. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationOut"];
        };
      };
      /** @description The path or the body cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (path, body (at least one field); also a URL the panel would refuse (`value_error` at `url`, `ctx.reason`: `scheme` for anything but https://, `address_refused` for a loopback, private, link-local or reserved address or `localhost`, `userinfo`, `invalid_url`, `url_taken`)); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The deployment gave the API no key ring (SECRETS_KEYS), or the integration's stored secret cannot be opened. Codes: `service_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "service_unavailable";
            };
          };
        };
      };
    };
  };
  rotateIntegrationSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["IntegrationRotateIn"];
      };
    };
    responses: {
      /** @description Rotated; the new signing secret is shown this once. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationWithSecretOut"];
        };
      };
      /** @description The path or the body cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (path, body); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The deployment gave the API no key ring (SECRETS_KEYS), or the integration's stored secret cannot be opened. Codes: `service_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "service_unavailable";
            };
          };
        };
      };
    };
  };
  getIntegrationHealth: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The integration's health. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationHealthOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path: an id that is not a UUID); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  enableIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        integration_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Enabled; how many deliveries resumed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IntegrationEnableOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Integration not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path: an id that is not a UUID); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  replayDeliveries: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["DeliveryReplayIn"];
      };
    };
    responses: {
      /** @description The replay, recorded; its job starts at once. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeliveryReplayOut"];
        };
      };
      /** @description The body (an encoding that does not inflate, or cut short) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description Request validation error (body; also `since` not before `until`, a range over 31 days, or an `integration_id` that is not the account's (`value_error`)); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getDeliveryReplay: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        replay_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The replay. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeliveryReplayOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Replay not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listEventTypes: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The catalogue. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["EventTypeListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `integrations:manage` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listCampaigns: {
    parameters: {
      query?: {
        limit?: number;
        /** @description next_before_id of the previous page */
        before_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of campaigns. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignListOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  createCampaign: {
    parameters: {
      query?: {
        name?: string;
        /** @description Template name (an APPROVED template of the number's WABA) */
        template?: string;
        language?: string;
        /** @description Business number that sends; the account's default number otherwise */
        phone_number_id?: string | null;
        /** @description ISO 8601; the campaign waits until then once started (default: at once) */
        start_at?: string | null;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CampaignCreateIn"];
        "text/csv": string;
      };
    };
    responses: {
      /** @description Created as a draft, with its validation report (`rejected_rows`). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description Business number not in the account, or a body that cannot be read (Content-Encoding, cut short). Codes: `no_connected_number`, `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "no_connected_number" | "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description JSON body above 32 MiB, or CSV file above 20 MiB (after any Content-Encoding). Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The template cannot be sent in a campaign — error envelope, codes: `template_not_found`, `template_paused`, `invalid_template`, `template_format_unsupported`; or the request or the CSV file itself is invalid (unreadable, unknown or missing columns, no rows, too many rows, a line past the field limits) — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "template_not_found" | "template_paused" | "invalid_template" | "template_format_unsupported";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
      /** @description The template catalogue could not be read; nothing was created, repeat the call. Codes: `templates_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "templates_unavailable";
            };
          };
        };
      };
    };
  };
  getCampaign: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The campaign. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  listCampaignRecipients: {
    parameters: {
      query?: {
        status?: "queued" | "sending" | "sent" | "delivered" | "read" | "failed" | "skipped" | "cancelled";
        limit?: number;
        /** @description next_after_id of the previous page */
        after_id?: number;
      };
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of recipients. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignRecipientListOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path or query); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  exportCampaignRecipients: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The CSV file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "text/csv": string;
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  startCampaign: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CampaignStartIn"];
      };
    };
    responses: {
      /** @description The campaign, `running` or `scheduled`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) or the body cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description The campaign is not a draft, or `accepted_recipients` is not its accepted count. Codes: `campaign_state_conflict`, `campaign_count_mismatch`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "campaign_state_conflict" | "campaign_count_mismatch";
            };
          };
        };
      };
      /** @description Body above 256 KiB. Codes: `payload_too_large`. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "payload_too_large";
            };
          };
        };
      };
      /** @description The campaign has no accepted recipient — error envelope, code `campaign_empty`; Meta keeps the number's WhatsApp Business Account banned or disconnected — `account_disabled`; or an invalid path or body — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "campaign_empty" | "account_disabled";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  pauseCampaign: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The campaign after the change. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description The campaign is not running or scheduled. Codes: `campaign_state_conflict`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "campaign_state_conflict";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  resumeCampaign: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The campaign after the change. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description The campaign is not paused. Codes: `campaign_state_conflict`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "campaign_state_conflict";
            };
          };
        };
      };
      /** @description Sending is blocked for the campaign's number — error envelope, code `account_disabled`; or an invalid path — `HTTPValidationError`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | (components["schemas"]["ErrorResponse"] & {
                error?: {
                  /** @enum {unknown} */
                  code?: "account_disabled";
                };
              })
            | components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  cancelCampaign: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        campaign_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The campaign after the change. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CampaignDetailOut"];
        };
      };
      /** @description The path (an invalid %-escape) cannot be read. Codes: `bad_request`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "bad_request";
            };
          };
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `messages:send` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Campaign not in this account. Codes: `not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "not_found";
            };
          };
        };
      };
      /** @description The campaign is not draft, scheduled, running or paused. Codes: `campaign_state_conflict`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "campaign_state_conflict";
            };
          };
        };
      };
      /** @description Request validation error (path); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  getUsage: {
    parameters: {
      query?: {
        /** @description First day (YYYY-MM-DD, São Paulo). Default: 29 days before `until` */
        since?: string;
        /** @description Last day, included (YYYY-MM-DD, São Paulo). Default: today in São Paulo */
        until?: string;
        /** @description One or more of day, number, category, type, separated by commas (`day,category`): one row per combination, in that order */
        group_by?: string;
        /** @description Only this business number's messages */
        phone_number_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The ledger for the range. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["UsageOut"];
        };
      };
      /** @description API key missing, invalid or revoked. Codes: `invalid_api_key`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "invalid_api_key";
            };
          };
        };
      };
      /** @description The API key lacks the scope `usage:read` this operation requires (`x-required-scope`). Codes: `insufficient_scope`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "insufficient_scope";
            };
          };
        };
      };
      /** @description Request validation error (query: a date that is not YYYY-MM-DD, since after until, a range above 366 days); malformed JSON is `json_invalid`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["HTTPValidationError"];
        };
      };
      /** @description Too many requests; honour the `Retry-After` header. Codes: `api_rate_limited`. */
      429: {
        headers: {
          /** @description Seconds to wait before repeating the request */
          "Retry-After": number;
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "api_rate_limited";
            };
          };
        };
      };
      /** @description Unexpected failure; repeat later. Codes: `internal_error`. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorResponse"] & {
            error?: {
              /** @enum {unknown} */
              code?: "internal_error";
            };
          };
        };
      };
    };
  };
  onMessageStatus: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["MessageStatusEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  onMessageReceived: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["MessageReceivedEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  onAccountUpdate: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AccountUpdateEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  onOrderUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["OrderUpdatedEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  onConversationHandover: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["ConversationHandoverEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  onConversationUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description Unix timestamp in seconds; part of the signature; changes on every attempt. Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Timestamp"?: string;
        /** @description `sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4). Sent only when the integration's signature scheme is `pt` (the default). */
        "X-PT-Signature"?: string;
        /** @description Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body) */
        "X-PT-Delivery-Id": string;
        /** @description Attempt number, starting at 1 */
        "X-PT-Attempt": string;
        /** @description `message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too */
        "X-PT-Event":
          | "message.status"
          | "message.received"
          | "account.update"
          | "order.updated"
          | "conversation.handover"
          | "conversation.updated";
        /** @description Standard Webhooks message id: the delivery id (equals `delivery_id` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-id"?: string;
        /** @description Unix timestamp in seconds of this attempt; part of the signature. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-timestamp"?: string;
        /** @description `v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second space-separated `v1,` value is made with the replaced secret. Verify with an official Standard Webhooks library. Sent only when the integration's signature scheme is `standard-webhooks`. */
        "webhook-signature"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["ConversationUpdatedEvent"];
      };
    };
    responses: {
      /** @description Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted. */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
