import type { Request, Response, Router } from "express";
import {
  IntegrationUrlError,
  DEFAULT_WEBHOOK_EVENTS,
  SIGNATURE_SCHEMES,
  SecretUnreadableError,
  WEBHOOK_EVENTS,
  getIntegration,
  listIntegrations,
  revealIntegrationSecret,
  rotateIntegrationSecret,
  setIntegration,
  setIntegrationActive,
  type IntegrationSummary,
  type SignatureScheme,
  type WebhookEvent,
} from "@gw/core/accounts";
import {
  describeDuration,
  enableIntegration,
  endpointHealth,
  type EndpointHealth,
  type HealthWindow,
} from "@gw/core/deliveries";
import { confirmPanelPassword, markPanelSessionReauthenticated } from "@gw/core/users";
import { z } from "@gw/config";
import { webhookEventTypes } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { retryInMinutes } from "../http/throttle.ts";
import { badge, csrfField, noticeFrom, pager, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime, formatNumber, formatPercent } from "../views/format.ts";
import { WEBHOOK_EVENT_LABELS, codeDetail, labelOf, plural } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 25;

/** Each event's description on the form; its name (the code an integrator's receiver reads) follows it. */
const EVENT_LABELS: Record<WebhookEvent, string> = {
  "message.status": "Status das mensagens enviadas (enviada, entregue, lida, falhou)",
  "message.received": "Mensagens que os contatos enviam",
  "account.update":
    "Avisos da Meta sobre a conta e os números (bloqueios, restrições, qualidade, vazão, limites, templates)",
  "order.updated": "Mudanças dos pedidos Pix (status enviado ao cliente, entregue, lida, falhou)",
  "conversation.handover":
    "Conversas passadas entre apps pela Meta (o agente de IA da Meta passou ou o parceiro tomou)",
  "conversation.updated": "Quem atende o cliente mudou (o bot pediu uma pessoa ou a pessoa devolveu ao bot)",
};

/** An integration's events as the list and its page name them: the glossary's words, the codes in the title. */
function eventNames(events: readonly string[]): SafeHtml {
  return html`<span title="${events.join(", ")}"
    >${events.map((event) => labelOf(WEBHOOK_EVENT_LABELS, event)).join(", ")}</span
  >`;
}

/** The signing schemes as staff choose them (issue 21). */
const SCHEME_LABELS: Record<SignatureScheme, { name: string; detail: string }> = {
  pt: {
    name: "X-PT-Signature (padrão)",
    detail: "cabeçalhos X-PT-Timestamp e X-PT-Signature, como descreve o contrato da API",
  },
  "standard-webhooks": {
    name: "Standard Webhooks",
    detail:
      "cabeçalhos webhook-id, webhook-timestamp e webhook-signature, verificáveis com as bibliotecas oficiais do Standard Webhooks (standardwebhooks.com)",
  },
};

const MESSAGES = {
  salva: "Integração salva.",
  criada: "Integração salva. Revele o segredo de assinatura para configurá-lo no seu receptor.",
  pausada: "Integração pausada: novos eventos não geram entregas para ela.",
  retomada: "Integração retomada: novos eventos voltam a gerar entregas.",
  segredo_trocado: "Segredo trocado. Revele o novo segredo e configure-o no seu receptor.",
  reativada: "Integração reativada: as entregas que aguardavam voltam a ser enviadas.",
};

/** A stored secret the key ring cannot open (a key missing from SECRETS_KEYS, or an altered value). */
const UNREADABLE_SECRET =
  "O segredo guardado desta integração não pôde ser decifrado (chave ausente da configuração ou valor alterado). " +
  "Nada foi revelado: avise a operação do gateway, ou troque o segredo marcando que o atual vazou.";
const UNREADABLE_SECRET_SAVE =
  "Nada foi salvo: o segredo guardado desta integração não pôde ser decifrado. Troque o segredo marcando que o " +
  "atual vazou (sem período de transição) e salve de novo.";
const UNREADABLE_SECRET_ROTATION =
  "O segredo atual desta integração não pôde ser decifrado, então não pode continuar valendo durante a troca. " +
  "Troque o segredo marcando que o atual vazou (sem período de transição).";

/** The operators' side of an unreadable secret (the page shows the user a notice). Names the place, never a value. */
function logUnreadable(deps: PanelDeps, error: SecretUnreadableError): void {
  deps.logger.error("integration signing secret cannot be decrypted", {
    integrationId: error.place.id,
    field: error.place.field,
    keyId: error.keyId,
    reason: error.reason,
  });
}

const eventList = z.union([z.enum(WEBHOOK_EVENTS), z.array(z.enum(WEBHOOK_EVENTS))]);

const integrationForm = z.object({
  url: z.string().trim().max(2048),
  // One checked box arrives as a string, several as an array, none as nothing.
  events: eventList.optional(),
  // A checkbox: "1" when checked, absent otherwise.
  em_ordem: z.literal("1").optional(),
  // Absent (an older form): a new integration gets the default, an edited one keeps its scheme.
  signature_scheme: z.enum(SIGNATURE_SCHEMES).optional(),
  // Absent (an older form): a new integration gets version 1, an edited one keeps its version.
  payload_version: z.enum(["1", "2"]).optional(),
});

const passwordForm = z.object({ password: z.string().min(1).max(1024) });

const rotateForm = z.object({ encerrar_anterior: z.literal("1").optional() });

const listQuery = z.object({ estado: z.enum(["ativas", "pausadas"]).optional() });

interface FormState {
  url: string;
  events: readonly string[];
  /** Ordered delivery per message; absent: off. */
  deliverInOrder?: boolean;
  /** Undefined: the default (`pt`) is checked. */
  scheme?: SignatureScheme | undefined;
  /** What message.received carries; undefined: version 1 is selected. */
  payloadVersion?: PayloadVersion | undefined;
  error?: string;
}

type PayloadVersion = 1 | 2;

const PAYLOAD_VERSIONS: readonly { value: PayloadVersion; label: string }[] = [
  { value: 1, label: "versão 1 (contrato original)" },
  { value: 2, label: "versão 2 (com opção escolhida, localização, contatos, reações, anúncio e mídia)" },
];

/** The version message.received bodies follow, as the list and an integration's page show it. */
function payloadVersionCell(version: PayloadVersion): SafeHtml {
  return html`<span title="${PAYLOAD_VERSIONS.find((known) => known.value === version)?.label ?? ""}"
    >versão ${version}</span
  >`;
}

function integrationFields(state: FormState): SafeHtml {
  return html`<label
      >URL do endpoint
      <input
        type="url"
        name="url"
        required
        maxlength="2048"
        inputmode="url"
        placeholder="https://exemplo.com.br/webhooks"
        value="${state.url}"
    /></label>
    <fieldset>
      <legend>Eventos</legend>
      ${WEBHOOK_EVENTS.map(
        (event) =>
          html`<label
            ><input type="checkbox" name="events" value="${event}" ${state.events.includes(event) ? "checked" : ""} />
            <span>${codeDetail(EVENT_LABELS[event], event)}</span></label
          >`,
      )}
    </fieldset>
    <label class="check"
      ><input type="checkbox" name="em_ordem" value="1" ${state.deliverInOrder === true ? "checked" : ""} />
      <span
        >Entregar em ordem por mensagem: os eventos de uma mensagem (e as mensagens recebidas de um mesmo contato)
        chegam na ordem; o seguinte espera o anterior ser entregue ou falhar de vez. Outras mensagens não esperam.</span
      ></label
    >
    <fieldset>
      <legend>Assinatura dos webhooks</legend>
      ${SIGNATURE_SCHEMES.map(
        (scheme) =>
          html`<label
            ><input
              type="radio"
              name="signature_scheme"
              value="${scheme}"
              ${(state.scheme ?? "pt") === scheme ? "checked" : ""}
            />
            <span>${SCHEME_LABELS[scheme].name}: ${SCHEME_LABELS[scheme].detail}</span></label
          >`,
      )}
      <p class="hint">
        Trocar o esquema muda os cabeçalhos das próximas tentativas: atualize o receptor ao mesmo tempo. O segredo
        continua o mesmo; no Standard Webhooks ele aparece como whsec_ seguido de base64, a forma que as bibliotecas
        aceitam.
      </p>
    </fieldset>
    <label
      >Conteúdo de message.received
      <select name="payload_version">
        ${PAYLOAD_VERSIONS.map(
          (version) =>
            html`<option value="${version.value}" ${(state.payloadVersion ?? 2) === version.value ? "selected" : ""}>
              ${version.label}
            </option>`,
        )}
      </select>
    </label>`;
}

/** The catalogue of events (the same as GET /public/v1/event-types): name, what it means, an example to unfold. */
function eventCatalogue(): SafeHtml {
  return html`<h2>Eventos que o gateway envia</h2>
    <p class="hint">
      Cada evento chega num POST assinado com o corpo abaixo. A mesma lista, com o JSON Schema de cada evento, está em
      <code>GET /public/v1/event-types</code> e no documento OpenAPI (<code>/public/v1/openapi.json</code>).
    </p>
    ${webhookEventTypes().map(
      (type) =>
        // For integrators (the bodies' field names are the contract's): `.integrator`, read as such.
        html`<section class="stack integrator" aria-label="Evento ${type.name}">
          <h3><code>${type.name}</code></h3>
          <p>${type.description}</p>
          <details>
            <summary>Exemplo de ${type.name}</summary>
            <pre aria-label="Exemplo de ${type.name}">${JSON.stringify(type.example, null, 2)}</pre>
          </details>
        </section>`,
    )}`;
}

type ReadForm =
  | {
      ok: true;
      url: string;
      events: WebhookEvent[];
      deliverInOrder: boolean;
      scheme: SignatureScheme | undefined;
      payloadVersion: PayloadVersion | undefined;
    }
  | { ok: false; state: FormState & { error: string } };

/** The form's values, or what to show again with the Portuguese reason they cannot be saved. */
function readIntegrationForm(body: unknown): ReadForm {
  const parsed = integrationForm.safeParse(body);
  if (!parsed.success)
    return { ok: false, state: { url: "", events: [], error: "Informe uma URL válida e escolha eventos da lista." } };
  const raw = parsed.data.events;
  const events = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const { url, signature_scheme: scheme } = parsed.data;
  const deliverInOrder = parsed.data.em_ordem === "1";
  const payloadVersion: PayloadVersion | undefined =
    parsed.data.payload_version === "2" ? 2 : parsed.data.payload_version === "1" ? 1 : undefined;
  const kept = { url, events, deliverInOrder, scheme, payloadVersion };
  if (url === "") return { ok: false, state: { ...kept, error: "Informe a URL do endpoint." } };
  if (events.length === 0) return { ok: false, state: { ...kept, error: "Escolha ao menos um evento." } };
  return { ok: true, ...kept };
}

/** Saves the form's values as a new integration, or as `integrationId`'s edit, by the signed-in user. */
function saveIntegrationForm(
  deps: PanelDeps,
  req: Request,
  accountId: string,
  form: Extract<ReadForm, { ok: true }>,
  integrationId?: string,
) {
  return setIntegration(
    {
      db: deps.db,
      policy: deps.integrationPolicy,
      secrets: deps.secrets,
      queue: deps.queue,
      logger: deps.logger,
      maxIntegrationsPerAccount: deps.config.MAX_INTEGRATIONS_PER_ACCOUNT,
    },
    {
      accountId,
      ...(integrationId === undefined ? {} : { integrationId }),
      url: form.url,
      events: form.events,
      deliverInOrder: form.deliverInOrder,
      ...(form.scheme === undefined ? {} : { signatureScheme: form.scheme }),
      ...(form.payloadVersion === undefined ? {} : { payloadVersion: form.payloadVersion }),
      actor: panelActor(req),
    },
  );
}

/** The values of a form that was read, to show again with the reason it was not saved. */
function formValues(form: Extract<ReadForm, { ok: true }>): FormState {
  return {
    url: form.url,
    events: form.events,
    deliverInOrder: form.deliverInOrder,
    scheme: form.scheme,
    payloadVersion: form.payloadVersion,
  };
}

/**
 * Why a save was refused, as its status and the sentence to show: a URL the guard refuses (400), or the URL of an
 * integration whose stored secret does not open (500, logged); anything else is thrown again.
 */
function saveRefusal(deps: PanelDeps, error: unknown): { status: 400 | 422 | 500; text: string } {
  if (error instanceof SecretUnreadableError) {
    logUnreadable(deps, error);
    return { status: 500, text: UNREADABLE_SECRET_SAVE };
  }
  if (error instanceof IntegrationUrlError) return { status: 400, text: error.message };
  // The account has MAX_INTEGRATIONS_PER_ACCOUNT already (the service's sentence names the number).
  if (error instanceof ApiError && error.code === "integration_limit_reached")
    return { status: 422, text: error.message };
  throw error;
}

function stateBadge(integration: IntegrationSummary): SafeHtml {
  if (integration.disabled_at !== null) return badge("desativada", "bad");
  return integration.active ? badge("ativa", "ok") : badge("pausada", "warn");
}

/** Integrations the gateway disabled (endpoint health): a notice each, with its reason, on the list. */
function disabledNotices(integrations: readonly IntegrationSummary[]): SafeHtml {
  return html`${integrations
    .filter((integration) => integration.disabled_at !== null)
    .map(
      (integration) =>
        html`<p class="notice error" role="alert">
          Integração <a href="/integracoes/${integration.id}">${integration.url}</a>
          ${integration.disabled_reason ?? "desativada"} (em ${formatDateTime(integration.disabled_at ?? "")}). As
          entregas aguardam, sem tentativas, até que ela seja reativada.
        </p>`,
    )}`;
}

function healthRow(label: string, window: HealthWindow): (SafeHtml | string)[] {
  const latency = window.latency_ms;
  const error = window.last_error;
  return [
    html`${label}`,
    html`${formatNumber(window.attempts)}`,
    formatPercent(window.success_rate),
    html`${latency ? `${formatNumber(latency.p50)} / ${formatNumber(latency.p95)} / ${formatNumber(latency.p99)} ms` : "—"}`,
    error
      ? html`${formatDateTime(error.at)}: ${error.status_code === null ? error.message : `HTTP ${error.status_code}`}
        ${error.body ? html`<code>${error.body}</code>` : ""}`
      : html`—`,
  ];
}

/** Success rate, latency and last error over the last hour and day; the disabled notice and the re-enable button. */
function healthSection(req: Request, deps: PanelDeps, health: EndpointHealth, base: string, manage: boolean) {
  return html`<h2>Saúde do endpoint</h2>
    ${
      health.disabled_at !== null
        ? html`<p class="notice error" role="alert">
              Integração ${health.disabled_reason ?? "desativada"} (em ${formatDateTime(health.disabled_at)}).
              ${plural(health.waiting_deliveries, { one: "entrega aguarda", other: "entregas aguardam" })}, sem
              tentativas e sem contar prazo, até que ela seja reativada; depois de corrigir o endpoint, reative-a para
              que sejam enviadas.
            </p>
            ${manage ? postButton(req, { action: `${base}/reativar`, label: "Reativar integração" }) : ""}`
        : ""
    }
    ${table({
      caption: "Tentativas de entrega feitas ao endpoint",
      headers: ["Período", "Tentativas", "Sucesso", "Latência p50 / p95 / p99", "Último erro"],
      rows: [healthRow("Última hora", health.last_hour), healthRow("Último dia", health.last_day)],
      empty: "",
    })}
    <p class="hint">
      Uma integração cujas tentativas falham todas por ${describeDuration(deps.config.WEBHOOK_DISABLE_AFTER_FAILING_MS)}
      é desativada pelo gateway; nada se perde: as entregas aguardam a reativação.
    </p>`;
}

/** The rotation overlap still running, if any. */
function overlapUntil(integration: IntegrationSummary, now = new Date()): string | null {
  const until = integration.previous_secret_expires_at;
  return until !== null && new Date(until) > now ? until : null;
}

function listPage(
  req: Request,
  deps: PanelDeps,
  result: Awaited<ReturnType<typeof listIntegrations>>,
  options: { estado: string | undefined; form?: FormState },
): string {
  const manage = can(req.panelUser, "integrations.manage");
  const form = options.form;
  return page(req, {
    title: "Integrações",
    section: "/integracoes",
    notice: form?.error ? { kind: "error", text: form.error } : noticeFrom(req, MESSAGES),
    body: html`${disabledNotices(result.integrations)}
      <p class="hint">
        Cada integração recebe um POST assinado (X-PT-Signature, ou Standard Webhooks quando escolhido) para cada evento
        escolhido. Com a integração pausada, novos eventos não geram entregas para ela.
      </p>
      <form method="get" action="/integracoes" class="filters">
        <label
          >Estado
          <select name="estado">
            <option value="">Todas</option>
            <option value="ativas" ${options.estado === "ativas" ? "selected" : ""}>Ativas</option>
            <option value="pausadas" ${options.estado === "pausadas" ? "selected" : ""}>Pausadas</option>
          </select>
        </label>
        <button type="submit" class="secondary">Filtrar</button>
      </form>
      ${table({
        caption: "Integrações da conta",
        headers: ["URL do endpoint", "Eventos", "Assinatura", "Versão do payload", "Estado", "Cadastrada em"],
        rows: result.integrations.map((integration) => [
          html`<a href="/integracoes/${integration.id}">${integration.url}</a>`,
          eventNames(integration.events),
          SCHEME_LABELS[integration.signature_scheme].name,
          payloadVersionCell(integration.payload_version),
          stateBadge(integration),
          formatDateTime(integration.created_at),
        ]),
        empty: options.estado ? "Nenhuma integração neste estado." : "Nenhuma integração cadastrada ainda.",
      })}
      ${pager({ path: "/integracoes", query: { estado: options.estado }, next: result.next_cursor })}
      ${
        manage
          ? html`<h2>Cadastrar integração</h2>
              <form method="post" action="/integracoes" class="stack">
                ${csrfField(req)} ${integrationFields(form ?? { url: "", events: DEFAULT_WEBHOOK_EVENTS })}
                <p class="hint">
                  ${
                    deps.integrationPolicy.allowHttp
                      ? "Ambiente de desenvolvimento: http:// e endereços locais são aceitos."
                      : "A URL deve usar https:// e apontar para um endereço público."
                  }
                  Uma URL já cadastrada tem seus eventos e sua assinatura atualizados e volta a ficar ativa.
                </p>
                <button type="submit">Salvar integração</button>
              </form>`
          : ""
      }
      ${eventCatalogue()}`,
  }).value;
}

interface DetailOptions {
  notice?: { kind: "ok" | "error"; text: string } | null;
  /** The secret, only in the answer to a confirmed reveal (a POST): never on a GET. */
  revealed?: string;
  form?: FormState;
}

function detailPage(
  req: Request,
  deps: PanelDeps,
  integration: IntegrationSummary,
  health: EndpointHealth | null,
  options: DetailOptions,
): string {
  const user = currentUser(req);
  const manage = can(user, "integrations.manage");
  const reveal = can(user, "integrations.reveal_secret");
  const base = `/integracoes/${integration.id}`;
  const overlap = overlapUntil(integration);
  const overlapHours = deps.config.SECRET_ROTATION_OVERLAP_HOURS;
  const form = options.form ?? {
    url: integration.url,
    events: integration.events,
    deliverInOrder: integration.deliver_in_order,
    scheme: integration.signature_scheme,
    payloadVersion: integration.payload_version,
  };
  const standard = integration.signature_scheme === "standard-webhooks";

  const secretSection = html`<h2>Segredo de assinatura</h2>
    <p class="hint">
      ${
        standard
          ? html`Cada entrega é assinada no esquema Standard Webhooks: verifique os cabeçalhos webhook-id,
            webhook-timestamp e webhook-signature com uma biblioteca oficial (por exemplo o pacote standardwebhooks do
            npm) e este segredo (whsec_…).`
          : html`Cada entrega é assinada com este segredo: o seu receptor calcula o HMAC-SHA256 de
              <code>timestamp.corpo</code> e compara com o cabeçalho X-PT-Signature.`
      }
    </p>
    ${
      overlap
        ? html`<p>
            Troca de segredo em andamento: até <strong>${formatDateTime(overlap)}</strong>
            ${
              standard
                ? "o cabeçalho webhook-signature também leva a assinatura feita com o segredo anterior"
                : "as entregas também levam X-PT-Signature-Previous, assinado com o segredo anterior"
            },
            para que um receptor ainda configurado com ele continue verificando.
          </p>`
        : ""
    }
    ${
      options.revealed
        ? html`<p>Segredo atual (guarde-o no seu receptor; ele não volta a aparecer sem nova confirmação de senha):</p>
            <p class="secret" aria-label="Segredo de assinatura">${options.revealed}</p>`
        : reveal
          ? html`<form method="post" action="${base}/segredo" class="stack">
              ${csrfField(req)}
              <label
                >Confirme sua senha para revelar o segredo
                <input type="password" name="password" autocomplete="current-password" required
              /></label>
              <button type="submit">Revelar segredo</button>
            </form>`
          : html`<p class="hint">Seu papel nesta conta não permite ver o segredo.</p>`
    }`;

  const rotateSection = manage
    ? html`<h2>Trocar segredo</h2>
        <form
          method="post"
          action="${base}/rotacionar"
          class="stack"
          data-confirm="Trocar o segredo de assinatura desta integração?"
        >
          ${csrfField(req)}
          <p class="hint">
            ${
              standard
                ? html`Um novo segredo passa a assinar webhook-signature. Por ${formatNumber(overlapHours)} h o segredo
                  atual continua assinando também, no mesmo cabeçalho, para que tentativas já em andamento sejam
                  verificadas enquanto você atualiza o receptor.`
                : html`Um novo segredo passa a assinar X-PT-Signature. Por ${formatNumber(overlapHours)} h o segredo
                  atual continua valendo em X-PT-Signature-Previous, para que tentativas já em andamento sejam
                  verificadas enquanto você atualiza o receptor.`
            }
          </p>
          <fieldset>
            <legend>Segredo atual</legend>
            <label
              ><input type="checkbox" name="encerrar_anterior" value="1" /> O segredo atual vazou: invalidar agora, sem
              período de sobreposição</label
            >
          </fieldset>
          <button type="submit" class="danger">Trocar segredo</button>
        </form>`
    : "";

  const stateSection = manage
    ? html`<h2>${integration.active ? "Pausar" : "Retomar"}</h2>
        <p class="hint">
          ${
            integration.active
              ? "Pausada, a integração não recebe entregas de novos eventos; entregas ainda na fila falham sem tentativa e podem ser reenviadas depois de retomar."
              : "Retomada, novos eventos voltam a gerar entregas. Entregas que falharam enquanto estava pausada podem ser reenviadas em Entregas."
          }
        </p>
        ${
          integration.active
            ? postButton(req, {
                action: `${base}/pausar`,
                label: "Pausar integração",
                danger: true,
                confirm: "Pausar esta integração? Novos eventos não gerarão entregas para ela.",
              })
            : postButton(req, { action: `${base}/retomar`, label: "Retomar integração" })
        }`
    : "";

  const editSection = manage
    ? html`<h2>Editar</h2>
        <form method="post" action="${base}" class="stack">
          ${csrfField(req)} ${integrationFields(form)}
          <button type="submit">Salvar alterações</button>
        </form>`
    : "";

  return page(req, {
    title: "Integração",
    section: "/integracoes",
    notice: options.notice ?? noticeFrom(req, MESSAGES),
    body: html`<p><a href="/integracoes">← Todas as integrações</a></p>
      <dl>
        <dt>URL do endpoint</dt>
        <dd><code>${integration.url}</code></dd>
        <dt>Eventos</dt>
        <dd>${eventNames(integration.events)}</dd>
        <dt>Assinatura</dt>
        <dd>${SCHEME_LABELS[integration.signature_scheme].name}</dd>
        <dt>Versão do payload</dt>
        <dd>${payloadVersionCell(integration.payload_version)}</dd>
        <dt>Estado</dt>
        <dd>${stateBadge(integration)}</dd>
        <dt>Entregar em ordem por mensagem</dt>
        <dd>${integration.deliver_in_order ? "sim" : "não"}</dd>
        <dt>Cadastrada em</dt>
        <dd>${formatDateTime(integration.created_at)}</dd>
        <dt>Atualizada em</dt>
        <dd>${formatDateTime(integration.updated_at)}</dd>
      </dl>
      ${health ? healthSection(req, deps, health, base, manage) : ""} ${secretSection} ${rotateSection} ${stateSection}
      ${editSection}`,
  }).value;
}

async function loadIntegration(deps: PanelDeps, req: Request): Promise<IntegrationSummary> {
  const id = req.params.id;
  const integration =
    typeof id === "string"
      ? await getIntegration({ db: deps.db }, { accountId: currentUser(req).accountId, integrationId: id })
      : null;
  if (!integration) throw new PanelHttpError(404, "Integração não encontrada nesta conta.");
  return integration;
}

async function loadHealth(deps: PanelDeps, req: Request, integration: IntegrationSummary) {
  return endpointHealth({ db: deps.db }, { accountId: currentUser(req).accountId, integrationId: integration.id });
}

async function sendDetail(
  res: Response,
  req: Request,
  deps: PanelDeps,
  integration: IntegrationSummary,
  status: number,
  options: DetailOptions,
): Promise<void> {
  const health = await loadHealth(deps, req, integration);
  res
    .status(status)
    .type("html")
    .send(detailPage(req, deps, integration, health, options));
}

export const integrationsPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    const list = async (req: Request, form?: FormState) => {
      const query = listQuery.safeParse({ estado: queryText(req, "estado") });
      if (!query.success) throw new PanelHttpError(400, "Filtro inválido: escolha ativas ou pausadas.");
      const estado = query.data.estado;
      const result = await listIntegrations(
        { db: deps.db },
        {
          accountId: currentUser(req).accountId,
          active: estado === undefined ? undefined : estado === "ativas",
          limit: PAGE_SIZE,
          cursor: queryText(req, "cursor"),
        },
      );
      return listPage(req, deps, result, { estado, ...(form ? { form } : {}) });
    };

    router.get("/integracoes", async (req, res) => {
      res.type("html").send(await list(req));
    });

    router.post("/integracoes", requireCapability("integrations.manage"), async (req, res) => {
      const user = currentUser(req);
      const form = readIntegrationForm(req.body);
      if (!form.ok)
        return void res
          .status(400)
          .type("html")
          .send(await list(req, form.state));
      try {
        const saved = await saveIntegrationForm(deps, req, user.accountId, form);
        res.redirect(303, `/integracoes/${saved.id}?ok=criada`);
      } catch (error) {
        const refusal = saveRefusal(deps, error);
        res
          .status(refusal.status)
          .type("html")
          .send(await list(req, { ...formValues(form), error: refusal.text }));
      }
    });

    router.get("/integracoes/:id", async (req, res) => {
      const integration = await loadIntegration(deps, req);
      res.type("html").send(detailPage(req, deps, integration, await loadHealth(deps, req, integration), {}));
    });

    router.post("/integracoes/:id", requireCapability("integrations.manage"), async (req, res) => {
      const user = currentUser(req);
      const integration = await loadIntegration(deps, req);
      const form = readIntegrationForm(req.body);
      if (!form.ok)
        return sendDetail(res, req, deps, integration, 400, {
          form: form.state,
          notice: { kind: "error", text: form.state.error },
        });
      try {
        await saveIntegrationForm(deps, req, user.accountId, form, integration.id);
      } catch (error) {
        const refusal = saveRefusal(deps, error);
        return sendDetail(res, req, deps, integration, refusal.status, {
          form: formValues(form),
          notice: { kind: "error", text: refusal.text },
        });
      }
      res.redirect(303, `/integracoes/${integration.id}?ok=salva`);
    });

    router.post("/integracoes/:id/segredo", requireCapability("integrations.reveal_secret"), async (req, res) => {
      const user = currentUser(req);
      const integration = await loadIntegration(deps, req);
      const parsed = passwordForm.safeParse(req.body);
      if (!parsed.success)
        return sendDetail(res, req, deps, integration, 400, {
          notice: { kind: "error", text: "Informe sua senha para revelar o segredo." },
        });
      // The sign-in throttle's point is taken before the check (http/throttle.ts): a stolen session cannot guess the
      // password, not even with parallel requests. A right password also counts as a fresh re-authentication.
      const admission = await deps.throttle.admit(user.email, req.ip ?? "unknown");
      if (!admission.admitted) {
        res.setHeader("Retry-After", String(admission.retryAfterSeconds));
        return sendDetail(res, req, deps, integration, 429, {
          notice: {
            kind: "error",
            text: `Muitas tentativas com senha errada. ${retryInMinutes(admission.retryAfterSeconds)}`,
          },
        });
      }
      const confirmed = await confirmPanelPassword(
        { db: deps.db, logger: deps.logger },
        { userId: user.userId, password: parsed.data.password },
      );
      if (!confirmed)
        return sendDetail(res, req, deps, integration, 401, {
          notice: { kind: "error", text: "Senha incorreta: o segredo não foi revelado." },
        });
      await admission.attempt.succeeded();
      await markPanelSessionReauthenticated({ db: deps.db }, { sessionId: user.sessionId });
      let secret: Awaited<ReturnType<typeof revealIntegrationSecret>>;
      try {
        secret = await revealIntegrationSecret(
          { db: deps.db, secrets: deps.secrets },
          { accountId: user.accountId, integrationId: integration.id, actor: panelActor(req) },
        );
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
        logUnreadable(deps, error);
        return sendDetail(res, req, deps, integration, 500, { notice: { kind: "error", text: UNREADABLE_SECRET } });
      }
      if (!secret) throw new PanelHttpError(404, "Integração não encontrada nesta conta.");
      await sendDetail(res, req, deps, integration, 200, { revealed: secret.signing_secret, notice: null });
    });

    router.post("/integracoes/:id/rotacionar", requireCapability("integrations.manage"), async (req, res) => {
      const user = currentUser(req);
      const integration = await loadIntegration(deps, req);
      const parsed = rotateForm.safeParse(req.body);
      if (!parsed.success) throw new PanelHttpError(400, "Formulário inválido.");
      const overlapHours = parsed.data.encerrar_anterior ? 0 : deps.config.SECRET_ROTATION_OVERLAP_HOURS;
      let rotated: Awaited<ReturnType<typeof rotateIntegrationSecret>>;
      try {
        rotated = await rotateIntegrationSecret(
          { db: deps.db, secrets: deps.secrets },
          { accountId: user.accountId, integrationId: integration.id, overlapHours, actor: panelActor(req) },
        );
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
        logUnreadable(deps, error);
        return sendDetail(res, req, deps, integration, 500, {
          notice: { kind: "error", text: UNREADABLE_SECRET_ROTATION },
        });
      }
      if (!rotated) throw new PanelHttpError(404, "Integração não encontrada nesta conta.");
      res.redirect(303, `/integracoes/${integration.id}?ok=segredo_trocado`);
    });

    router.post("/integracoes/:id/reativar", requireCapability("integrations.manage"), async (req, res) => {
      const user = currentUser(req);
      const integration = await loadIntegration(deps, req);
      await enableIntegration(
        { db: deps.db, queue: deps.queue, logger: deps.logger },
        { accountId: user.accountId, integrationId: integration.id, actor: panelActor(req) },
      );
      res.redirect(303, `/integracoes/${integration.id}?ok=reativada`);
    });

    for (const [path, active] of [
      ["pausar", false],
      ["retomar", true],
    ] as const) {
      router.post(`/integracoes/:id/${path}`, requireCapability("integrations.manage"), async (req, res) => {
        const user = currentUser(req);
        const integration = await loadIntegration(deps, req);
        const updated = await setIntegrationActive(
          { db: deps.db },
          { accountId: user.accountId, integrationId: integration.id, active, actor: panelActor(req) },
        );
        if (!updated) throw new PanelHttpError(404, "Integração não encontrada nesta conta.");
        res.redirect(303, `/integracoes/${integration.id}?ok=${active ? "retomada" : "pausada"}`);
      });
    }
  },
};
