/**
 * Graph API shapes of the WhatsApp Cloud API as this service uses them
 * (see /work/shared/reference/meta-cloud-api.md, sections C, D and E).
 */
import type { Readable } from "node:stream";
import type { SendRoute } from "@gw/contracts";

// ---------------------------------------------------------------------------------------------
// Template listing (GET /{WABA-ID}/message_templates)
// ---------------------------------------------------------------------------------------------

/** One button of a BUTTONS component as Meta lists it. `type` is kept open: Meta adds types over time. */
export interface MetaTemplateButton {
  type: string;
  text?: string;
  url?: string;
  phone_number?: string;
  /** URL buttons: the full example URL(s); COPY_CODE: the example code. */
  example?: string[] | string;
  /** OTP buttons as created (Meta usually lists them back as URL buttons). */
  otp_type?: string;
  autofill_text?: string;
  flow_id?: string | number;
  flow_action?: string;
  navigate_screen?: string;
}

export interface MetaTemplateExample {
  header_text?: string[];
  header_text_named_params?: { param_name: string; example: string }[];
  header_handle?: string[];
  body_text?: string[][];
  body_text_named_params?: { param_name: string; example: string }[];
}

/**
 * One component of a template. `type` is HEADER, BODY, FOOTER, BUTTONS, or a format we do not fill
 * (CAROUSEL, LIMITED_TIME_OFFER, ...); one open interface instead of a closed union because the listing
 * is foreign data and unknown component types must survive untouched.
 */
export interface MetaTemplateComponent {
  type: string;
  /** HEADER: TEXT, IMAGE, VIDEO, DOCUMENT, GIF, LOCATION, PRODUCT. */
  format?: string;
  text?: string;
  example?: MetaTemplateExample;
  /** BODY of authentication templates. */
  add_security_recommendation?: boolean;
  /** FOOTER of authentication templates. */
  code_expiration_minutes?: number;
  buttons?: MetaTemplateButton[];
  cards?: unknown[];
  limited_time_offer?: unknown;
}

export interface MetaTemplateQualityScore {
  score?: string | null;
  /** Unix seconds. */
  date?: number | null;
  reasons?: unknown[] | null;
}

/** One item of the template listing. Only `name`, `language`, `status`, `category` and `components` are relied on. */
export interface MetaTemplate {
  id?: string;
  name: string;
  language: string;
  status: string;
  category: string;
  sub_category?: string;
  parameter_format?: string;
  components: MetaTemplateComponent[];
  quality_score?: MetaTemplateQualityScore | null;
  rejected_reason?: string | null;
  message_send_ttl_seconds?: number | null;
  library_template_name?: string;
}

export interface MetaTemplatePage {
  data: MetaTemplate[];
  paging?: { cursors?: { before?: string; after?: string }; next?: string; previous?: string };
}

// ---------------------------------------------------------------------------------------------
// Sends (POST /{PHONE-NUMBER-ID}/messages)
// ---------------------------------------------------------------------------------------------

/**
 * Who a send goes to (meta-2026 §1.6): a phone in `to` (digits only, country code first), or a BSUID or parent
 * BSUID in `recipient` — never a BSUID in `to`. Meta would take both (the phone wins); the gateway sends one.
 */
export type GraphRecipient = { to: string; recipient?: never } | { recipient: string; to?: never };

type GraphPayloadBase = GraphRecipient & {
  messaging_product: "whatsapp";
  recipient_type: "individual";
  /** Present when replying to (quoting) a message. */
  context?: { message_id: string };
  /** Up to 512 characters Meta echoes in every status webhook of the message (`statuses[].biz_opaque_callback_data`). */
  biz_opaque_callback_data?: string;
};

export type GraphTextPayload = GraphPayloadBase & {
  type: "text";
  text: { body: string; preview_url?: boolean };
};

export interface GraphTextParameter {
  type: "text";
  text: string;
  /** NAMED templates only. */
  parameter_name?: string;
}

export type GraphMediaType = "image" | "video" | "document";

export interface GraphMediaObject {
  link: string;
  /** Documents only: the file name shown to the recipient. */
  filename?: string;
}

export type GraphHeaderMediaParameter =
  | { type: "image"; image: GraphMediaObject }
  | { type: "video"; video: GraphMediaObject }
  | { type: "document"; document: GraphMediaObject };

export interface GraphHeaderComponent {
  type: "header";
  parameters: (GraphTextParameter | GraphHeaderMediaParameter)[];
}

export interface GraphBodyComponent {
  type: "body";
  parameters: GraphTextParameter[];
}

export interface GraphUrlButtonComponent {
  type: "button";
  sub_type: "url";
  /** A string in Meta's URL-button examples. */
  index: string;
  parameters: GraphTextParameter[];
}

export interface GraphCopyCodeButtonComponent {
  type: "button";
  sub_type: "copy_code";
  index: number;
  parameters: [{ type: "coupon_code"; coupon_code: string }];
}

/** Amounts in cents: `value` with `offset` 100. */
export interface GraphAmount {
  value: number;
  offset: 100;
}

export type PixKeyType = "CNPJ" | "CPF" | "EMAIL" | "PHONE" | "EVP";
export type PixGoodsType = "digital-goods" | "physical-goods";

export interface GraphOrderItem {
  retailer_id?: string;
  name: string;
  amount: GraphAmount;
  quantity: number;
}

/** Brazil Pix order details (reference E.6 / E.7). */
export interface GraphPixSetting {
  type: "pix_dynamic_code";
  pix_dynamic_code: { code: string; merchant_name: string; key: string; key_type: PixKeyType };
}

export interface GraphPaymentLinkSetting {
  type: "payment_link";
  payment_link: { uri: string };
}

export interface GraphBoletoSetting {
  type: "boleto";
  boleto: { digitable_line: string };
}

export interface GraphOrderDetails {
  reference_id: string;
  type: PixGoodsType;
  payment_type: "br";
  /** The Pix entry first (the contract's fields), then an optional payment link and boleto (issue 28). */
  payment_settings: [GraphPixSetting, ...(GraphPaymentLinkSetting | GraphBoletoSetting)[]];
  currency: "BRL";
  total_amount: GraphAmount;
  order: {
    status: "pending";
    tax: GraphAmount & { description?: string };
    items: GraphOrderItem[];
    subtotal: GraphAmount;
  };
}

export interface GraphOrderDetailsButtonComponent {
  type: "button";
  sub_type: "order_details";
  index: number;
  parameters: [{ type: "action"; action: { order_details: GraphOrderDetails } }];
}

/**
 * The `order_status` component of an order-status template (meta-late-2026 §1; the nesting is partners', Meta's page
 * is unverified here): the order's reference and new status, no payment.
 */
export interface GraphOrderStatusComponent {
  type: "order_status";
  parameters: [
    {
      type: "order_status";
      order_status: { reference_id: string; order: { status: GraphOrderStatus; description?: string } };
    },
  ];
}

export type GraphTemplateComponent =
  | GraphHeaderComponent
  | GraphBodyComponent
  | GraphUrlButtonComponent
  | GraphCopyCodeButtonComponent
  | GraphOrderDetailsButtonComponent
  | GraphOrderStatusComponent;

export type GraphTemplatePayload = GraphPayloadBase & {
  type: "template";
  template: {
    name: string;
    language: { code: string; policy?: "deterministic" };
    /** Omitted when the template takes no parameters (Meta's hello_world example). */
    components?: GraphTemplateComponent[];
  };
};

/** Interactive `order_details` outside a template (reference E.6), only inside the 24-hour window. */
export type GraphInteractiveOrderDetailsPayload = GraphPayloadBase & {
  type: "interactive";
  interactive: {
    type: "order_details";
    header?: { type: "text"; text: string } | GraphHeaderMediaParameter;
    body: { text: string };
    footer?: { text: string };
    action: { name: "review_and_pay"; parameters: GraphOrderDetails };
  };
};

// Free-form kinds beyond text (issue 27; meta-messages.md §1–3). Each is sent only inside the contact's window.

/** A media by exactly one of an uploaded media id or a public link Meta downloads. */
export type GraphMediaSource = { id: string; link?: never } | { link: string; id?: never };

/** A header of reply buttons or of a URL button: a text or a media (list headers are text only). */
export type GraphInteractiveHeader =
  | { type: "text"; text: string }
  | { type: "image"; image: GraphMediaSource }
  | { type: "video"; video: GraphMediaSource }
  | { type: "document"; document: GraphMediaSource & { filename?: string } };

export interface GraphInteractiveButtons {
  type: "button";
  header?: GraphInteractiveHeader;
  body: { text: string };
  footer?: { text: string };
  action: { buttons: { type: "reply"; reply: { id: string; title: string } }[] };
}

export interface GraphInteractiveList {
  type: "list";
  header?: { type: "text"; text: string };
  body: { text: string };
  footer?: { text: string };
  action: {
    button: string;
    sections: { title: string; rows: { id: string; title: string; description?: string }[] }[];
  };
}

export interface GraphInteractiveCtaUrl {
  type: "cta_url";
  header?: GraphInteractiveHeader;
  body: { text: string };
  footer?: { text: string };
  action: { name: "cta_url"; parameters: { display_text: string; url: string } };
}

/** Meta's own name for the location request (the API's `location_request`); no header, no footer. */
export interface GraphInteractiveLocationRequest {
  type: "location_request_message";
  body: { text: string };
  action: { name: "send_location" };
}

/**
 * A request for the user's phone (meta-late-2026 §3; partners' shape, Meta's page unverified): the reply is a
 * `contacts` message whose card has `origin: contact_request`.
 */
export interface GraphInteractiveRequestContactInfo {
  type: "request_contact_info";
  body: { text: string };
  action: { name: "request_contact_info" };
}

export type GraphInteractive =
  | GraphInteractiveButtons
  | GraphInteractiveList
  | GraphInteractiveCtaUrl
  | GraphInteractiveLocationRequest
  | GraphInteractiveRequestContactInfo;

export type GraphInteractivePayload = GraphPayloadBase & { type: "interactive"; interactive: GraphInteractive };

export type GraphMediaKind = "image" | "video" | "audio" | "document" | "sticker";

/** The media object of a media message: `caption` (image, video, document), `filename` (document), `voice` (audio). */
export type GraphMediaContent = GraphMediaSource & { caption?: string; filename?: string; voice?: boolean };

export type GraphMediaPayload = GraphPayloadBase &
  { [K in GraphMediaKind]: { type: K } & { [P in K]: GraphMediaContent } }[GraphMediaKind];

/** A reaction (`emoji: ""` removes it); never with `context` (meta-messages.md §3.1). */
export type GraphReactionPayload = GraphPayloadBase & {
  type: "reaction";
  reaction: { message_id: string; emoji: string };
};

/** Coordinates as decimal strings, the type Meta documents (meta-messages.md §3.2, U#16). */
export type GraphLocationPayload = GraphPayloadBase & {
  type: "location";
  location: { latitude: string; longitude: string; name?: string; address?: string };
};

/** Meta's order statuses as sent (`partially-shipped` hyphenated), meta-2026 §6.3. */
export type GraphOrderStatus = "pending" | "processing" | "partially-shipped" | "shipped" | "completed" | "canceled";

/**
 * Interactive `order_status` (meta-2026 §6.3): the follow-up of an order_details message, same reference_id. A free-form
 * message: only inside the contact's window (meta-messages §5.1).
 */
export type GraphInteractiveOrderStatusPayload = GraphPayloadBase & {
  type: "interactive";
  interactive: {
    type: "order_status";
    body: { text: string };
    action: {
      name: "review_order";
      parameters: {
        reference_id: string;
        order: { status: GraphOrderStatus; description?: string };
        payment?: { status: "pending" | "captured" | "failed"; timestamp?: number };
      };
    };
  };
};

export type GraphMessagePayload =
  | GraphInteractiveOrderStatusPayload
  | GraphTextPayload
  | GraphTemplatePayload
  | GraphInteractiveOrderDetailsPayload
  | GraphInteractivePayload
  | GraphMediaPayload
  | GraphReactionPayload
  | GraphLocationPayload;

/**
 * Mark an inbound message read (and the ones before it), optionally showing the typing indicator for up to 25 s or
 * until the reply (meta-2026 §4). It names the inbound wamid only, so it works alike for users known by BSUID.
 */
export interface GraphReadReceiptPayload {
  messaging_product: "whatsapp";
  status: "read";
  message_id: string;
  typing_indicator?: { type: "text" };
}

/**
 * POST /{phone_number_id}/thread_control (Conversation Routing, meta-late-2026 §5): pass, take or release a
 * customer's conversation. Exactly one of `to` (a phone) or `recipient` (a BSUID), as a send names its recipient;
 * `control_pass.target_role: "ai_agent"` passes to Meta's Business AI agent, none to the escalation partner.
 */
export interface GraphThreadControlPayload {
  messaging_product: "whatsapp";
  to?: string;
  recipient?: string;
  action: "pass" | "take" | "release";
  control_pass?: { target_role: "ai_agent" };
  metadata?: string;
}

/** Success answer of a send (reference C.1). */
export interface GraphSendResponse {
  messaging_product?: string;
  contacts?: { input?: string; wa_id?: string; user_id?: string }[];
  messages?: { id?: string; message_status?: string; group_id?: string }[];
}

/** Graph error envelope (reference C.2). */
export interface GraphErrorEnvelope {
  error: {
    message?: string;
    type?: string;
    code: number;
    error_subcode?: number;
    error_data?: { messaging_product?: string; details?: string };
    fbtrace_id?: string;
    [extra: string]: unknown;
  };
}

export interface MetaSendResult {
  wamid: string;
  waId: string | null;
  /** The recipient's BSUID: Meta answers it only to a send addressed by BSUID alone (meta-2026 §1.6). */
  userId: string | null;
  /** `accepted`, ... when Meta paces a template send; null otherwise. */
  messageStatus: string | null;
}

// ---------------------------------------------------------------------------------------------
// Business numbers (GET /{PHONE-NUMBER-ID}?fields=...) and media (GET /{MEDIA-ID}, then its URL)
// ---------------------------------------------------------------------------------------------

/**
 * A business number as Meta reports it. Values are Meta's, kept open: quality_rating GREEN, YELLOW, RED, UNKNOWN
 * (or NA for new numbers); messaging_limit_tier TIER_50 … TIER_UNLIMITED; throughput level STANDARD, HIGH.
 */
export interface MetaPhoneNumber {
  id: string;
  displayPhoneNumber: string | null;
  verifiedName: string | null;
  qualityRating: string | null;
  messagingLimitTier: string | null;
  throughputLevel: string | null;
}

/** GET /{MEDIA-ID}: where to download the media (a short-lived URL, 5 minutes) and what it is. */
export interface MetaMediaInfo {
  id: string;
  url: string;
  mimeType: string | null;
  /** As Meta reports it (hex). */
  sha256: string | null;
  fileSize: number | null;
}

/** A media being downloaded from its URL with the token: what Meta announced, and its bytes as they come. */
export interface MetaMediaStream {
  /** The answer's Content-Type, or application/octet-stream when it had none. */
  contentType: string;
  /** The answer's Content-Length, when it gave one (never past the cap). */
  contentLength: number | null;
  /** The bytes; fails with MetaReadError (`too_large`, `network`, `timeout`) when the download does. */
  body: Readable;
}

/**
 * The Graph endpoint a send goes to: `/messages` (Cloud API), or `/marketing_messages` (the Marketing Messages API,
 * MARKETING templates only, same body and answer; meta-2026 §7). Spelled once, in the contract's `routed_via`.
 */
export type GraphSendRoute = SendRoute;
