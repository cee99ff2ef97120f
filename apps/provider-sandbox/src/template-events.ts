import { z } from "zod";
import type { SandboxState } from "./state.ts";
import type { QualityScore, SandboxTemplate, TemplateButton, TemplateComponent, TemplateStatus } from "./types.ts";
import { wabaPayload, type TemplateWebhookPayload } from "./webhooks.ts";

/** Meta's `event` values of message_template_status_update. */
export const TEMPLATE_EVENTS = [
  "APPROVED",
  "REJECTED",
  "PENDING",
  "PAUSED",
  "DISABLED",
  "FLAGGED",
  "REINSTATED",
  "IN_APPEAL",
  "LIMIT_EXCEEDED",
  "LOCKED",
  "UNLOCKED",
  "ARCHIVED",
  "UNARCHIVED",
  "PENDING_DELETION",
  "DELETED",
] as const;
export type TemplateEvent = (typeof TEMPLATE_EVENTS)[number];

const QUALITY_SCORES = ["GREEN", "YELLOW", "RED", "UNKNOWN"] as const;

/**
 * The catalogue status each event leaves the template in. FLAGGED, LOCKED and UNLOCKED warn without changing it;
 * DELETED removes the template from the catalogue.
 */
const STATUS_AFTER: Partial<Record<TemplateEvent, TemplateStatus>> = {
  APPROVED: "APPROVED",
  REJECTED: "REJECTED",
  PENDING: "PENDING",
  PAUSED: "PAUSED",
  DISABLED: "DISABLED",
  REINSTATED: "APPROVED",
  IN_APPEAL: "IN_APPEAL",
  LIMIT_EXCEEDED: "LIMIT_EXCEEDED",
  ARCHIVED: "ARCHIVED",
  UNARCHIVED: "APPROVED",
  PENDING_DELETION: "PENDING_DELETION",
};

const templateRef = {
  template_id: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  language: z.string().min(1).optional(),
  waba_id: z.string().min(1).optional(),
};

/** Body of POST /_sandbox/templates/status. */
export const templateStatusSchema = z.object({
  ...templateRef,
  event: z.enum(TEMPLATE_EVENTS),
  /** Default: INVALID_FORMAT for REJECTED, null for PENDING_DELETION and DELETED, else NONE (Meta's values). */
  reason: z.string().min(1).nullable().optional(),
  other_info: z.object({ title: z.string(), description: z.string() }).optional(),
  rejection_info: z.object({ reason: z.string(), recommendation: z.string() }).optional(),
  /** Unix seconds; DISABLED only, default now. */
  disable_date: z.number().int().nonnegative().optional(),
});

const TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"] as const;
const BUTTON_TYPES = [
  "QUICK_REPLY",
  "URL",
  "PHONE_NUMBER",
  "COPY_CODE",
  "ORDER_DETAILS",
  "FLOW",
  "CATALOG",
] as const satisfies readonly TemplateButton["type"][];

/**
 * Body of POST /_sandbox/templates/components: the template is edited (Meta's message_template_components_update).
 * Each part given replaces the catalogue's (`title` and `footer`: null removes them); sends are validated against
 * the edited template from then on.
 */
export const templateComponentsSchema = z.object({
  ...templateRef,
  /** The body text (`message_template_element`). */
  element: z.string().min(1).optional(),
  /** A text header (`message_template_title`). */
  title: z.string().min(1).nullable().optional(),
  footer: z.string().min(1).nullable().optional(),
  buttons: z
    .array(
      z
        .object({
          type: z.enum(BUTTON_TYPES),
          text: z.string().min(1),
          url: z.string().min(1).optional(),
          phone_number: z.string().min(1).optional(),
        })
        .strict(),
    )
    .optional(),
});

/**
 * Body of POST /_sandbox/templates/category: Meta's template_category_update. `impending: true` is the 24 h notice
 * (the catalogue keeps the current category); otherwise the change is done and the catalogue (so pricing) follows.
 */
export const templateCategorySchema = z.object({
  ...templateRef,
  category: z.enum(TEMPLATE_CATEGORIES),
  impending: z.boolean().default(false),
  /** Impending only: when the change happens, Unix seconds; default 24 h from now. */
  category_update_timestamp: z.number().int().nonnegative().optional(),
});

/** Body of POST /_sandbox/templates/quality. */
export const templateQualitySchema = z.object({
  ...templateRef,
  new_quality_score: z.enum(QUALITY_SCORES),
  /** Default: the catalogue's current quality_score.score. */
  previous_quality_score: z.enum(QUALITY_SCORES).optional(),
});

type TemplateRef = { template_id?: string | undefined; name?: string | undefined; language?: string | undefined };

/** The catalogue template a control call names, or a Portuguese refusal. */
export function findCatalogueTemplate(
  state: SandboxState,
  ref: TemplateRef,
): { template: SandboxTemplate } | { error: string; status: number } {
  if (ref.template_id === undefined && ref.name === undefined)
    return { status: 400, error: "Informe template_id ou name do template." };
  const matches = state.config.templates.filter(
    (t) =>
      (ref.template_id === undefined || t.id === ref.template_id) &&
      (ref.name === undefined || t.name === ref.name) &&
      (ref.language === undefined || t.language === ref.language),
  );
  const [template, ...others] = matches;
  if (!template) return { status: 404, error: "O template não está no catálogo do sandbox." };
  if (others.length > 0)
    return { status: 400, error: `O template ${template.name} existe em mais de um idioma: informe language.` };
  return { template };
}

/** Replaces one template of the catalogue (a new array: the fixtures the sandbox started with are never mutated). */
function replaceTemplate(state: SandboxState, id: string, next: SandboxTemplate | null): void {
  state.config.templates = state.config.templates.flatMap((t) => (t.id !== id ? [t] : next ? [next] : []));
}

/** Meta sends template ids as JSON numbers; ids that are not safe integers stay strings. */
function templateIdValue(id: string): number | string {
  return /^\d+$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

/** How every template webhook names its template: id, name and language. */
function templateNamed(template: SandboxTemplate) {
  return {
    message_template_id: templateIdValue(template.id),
    message_template_name: template.name,
    message_template_language: template.language,
  };
}

/** Applies a status event to the catalogue and builds Meta's message_template_status_update webhook. */
export function templateStatusUpdate(
  state: SandboxState,
  template: SandboxTemplate,
  input: z.infer<typeof templateStatusSchema>,
): TemplateWebhookPayload {
  const reason =
    input.reason !== undefined
      ? input.reason
      : input.event === "REJECTED"
        ? "INVALID_FORMAT"
        : input.event === "PENDING_DELETION" || input.event === "DELETED"
          ? null
          : "NONE";
  const value: Record<string, unknown> = {
    event: input.event,
    ...templateNamed(template),
    reason,
    message_template_category: template.category,
  };
  if (input.event === "DISABLED")
    value.disable_info = { disable_date: input.disable_date ?? Math.floor(state.now() / 1000) };
  const otherInfo =
    input.other_info ??
    (input.event === "PAUSED"
      ? {
          title: "FIRST_PAUSE",
          description: "Your WhatsApp message template has been paused for 3 hours because it had issues.",
        }
      : undefined);
  if (otherInfo) value.other_info = otherInfo;
  if (input.rejection_info) value.rejection_info = input.rejection_info;

  const status = STATUS_AFTER[input.event];
  if (input.event === "DELETED") replaceTemplate(state, template.id, null);
  else if (status)
    replaceTemplate(state, template.id, {
      ...template,
      status,
      rejected_reason: status === "REJECTED" ? (reason ?? "NONE") : "NONE",
    });
  return wabaPayload(state, input.waba_id, "message_template_status_update", value);
}

/** Applies a quality change to the catalogue and builds Meta's message_template_quality_update webhook. */
export function templateQualityUpdate(
  state: SandboxState,
  template: SandboxTemplate,
  input: z.infer<typeof templateQualitySchema>,
): TemplateWebhookPayload {
  const previous: QualityScore = input.previous_quality_score ?? template.quality_score.score;
  replaceTemplate(state, template.id, {
    ...template,
    quality_score: { score: input.new_quality_score, date: Math.floor(state.now() / 1000) },
  });
  return wabaPayload(state, input.waba_id, "message_template_quality_update", {
    previous_quality_score: previous,
    new_quality_score: input.new_quality_score,
    ...templateNamed(template),
  });
}

function withText(
  components: TemplateComponent[],
  type: "HEADER" | "FOOTER",
  text: string | null | undefined,
): TemplateComponent[] {
  if (text === undefined) return components;
  const others = components.filter((c) => c.type !== type);
  if (text === null) return others;
  const next: TemplateComponent = type === "HEADER" ? { type, format: "TEXT", text } : { type, text };
  // Header first, footer after the body, as Meta lists components.
  if (type === "HEADER") return [next, ...others];
  const body = others.findIndex((c) => c.type === "BODY");
  return [...others.slice(0, body + 1), next, ...others.slice(body + 1)];
}

/** Applies an edit to the catalogue and builds Meta's message_template_components_update webhook. */
export function templateComponentsUpdate(
  state: SandboxState,
  template: SandboxTemplate,
  input: z.infer<typeof templateComponentsSchema>,
): TemplateWebhookPayload {
  let components = template.components.map((c) =>
    c.type === "BODY" && input.element !== undefined ? { ...c, text: input.element } : c,
  );
  components = withText(components, "HEADER", input.title);
  components = withText(components, "FOOTER", input.footer);
  if (input.buttons) {
    const buttons: TemplateButton[] = input.buttons.map((b) => ({ ...b }));
    const rest = components.filter((c) => c.type !== "BUTTONS");
    components = buttons.length > 0 ? [...rest, { type: "BUTTONS", buttons }] : rest;
  }
  replaceTemplate(state, template.id, { ...template, components });

  const header = components.find((c) => c.type === "HEADER");
  const footer = components.find((c) => c.type === "FOOTER");
  const buttons = components.find((c) => c.type === "BUTTONS")?.buttons ?? [];
  const value: Record<string, unknown> = {
    ...templateNamed(template),
    message_template_element: components.find((c) => c.type === "BODY")?.text ?? "",
  };
  if (header?.format === "TEXT" && header.text !== undefined) value.message_template_title = header.text;
  if (footer?.text !== undefined) value.message_template_footer = footer.text;
  if (buttons.length > 0) {
    value.message_template_buttons = buttons.map((button) => {
      const item: Record<string, string> = { message_template_button_type: button.type };
      if (button.text !== undefined) item.message_template_button_text = button.text;
      if (button.url !== undefined) item.message_template_button_url = button.url;
      if (button.phone_number !== undefined) item.message_template_button_phone_number = button.phone_number;
      return item;
    });
  }
  return wabaPayload(state, input.waba_id, "message_template_components_update", value);
}

/**
 * Builds Meta's template_category_update (meta-2026 §3.5): the impending shape (`new_category` is the current one,
 * `correct_category` the one it will become) or the completed one (`previous_category`, `new_category`), which also
 * recategorizes the catalogue entry.
 */
export function templateCategoryUpdate(
  state: SandboxState,
  template: SandboxTemplate,
  input: z.infer<typeof templateCategorySchema>,
): TemplateWebhookPayload {
  const value: Record<string, unknown> = templateNamed(template);
  if (input.impending) {
    value.new_category = template.category;
    value.correct_category = input.category;
    value.category_update_timestamp = input.category_update_timestamp ?? Math.floor(state.now() / 1000) + 24 * 3600;
  } else {
    value.previous_category = template.category;
    value.new_category = input.category;
    replaceTemplate(state, template.id, { ...template, category: input.category });
  }
  return wabaPayload(state, input.waba_id, "template_category_update", value);
}
