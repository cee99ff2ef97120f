// The CLI's commands, their options and help text, and the argument parser. Pure: no database, no services, so
// `--help` and usage errors answer even when the database (or the service code) is not there.
import { parseArgs } from "node:util";

/** An operator mistake: exit code 2, with a hint to the help of `command` (or the general help). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

interface OptionSpec {
  /** Placeholder of the value in the usage line (`--account ID`); absent for a flag (`--default`). */
  readonly value?: string;
  readonly required?: boolean;
  /** Checked here, before anything runs: a UUID id, or a positive integer. */
  readonly kind?: "uuid" | "integer";
  readonly help: string;
}

export interface CommandSpec {
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Extra paragraphs of the command's help. */
  readonly notes?: readonly string[];
  readonly examples: readonly string[];
  /** First line of the human output on success. */
  readonly done: string;
  /**
   * Last line of the human output on success (e.g. "keep the key now"); a function when it depends on the result
   * (`integration set` shows the secret only when it created the integration).
   */
  readonly after?: string | ((result: Readonly<Record<string, unknown>>) => string);
  /** Human output of an empty list. */
  readonly empty?: string;
}

const UUID_EXAMPLE = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
// Sample ids for the examples.
const ACCOUNT = UUID_EXAMPLE;
const KEY = "0f8fad5b-d9cb-469f-a165-70867728950e";
const INTEGRATION = "16fd2706-8baf-433b-82eb-8c7fada847da";

/** `--account ID`, required: the account the command acts on (`owning`: the account that owns what it names). */
function accountOption(owning?: string) {
  return {
    value: "ID",
    required: true,
    kind: "uuid",
    help: owning === undefined ? "id (UUID) da conta" : `id (UUID) da conta dona ${owning}`,
  } as const satisfies OptionSpec;
}

/** `--integration ID`, required. */
const INTEGRATION_OPTION = { value: "ID", required: true, kind: "uuid", help: "id (UUID) da integração" } as const;

export const COMMANDS = {
  "account list": {
    summary: "Lista as contas com seus ids (o que --account pede), da mais antiga à mais nova.",
    options: {},
    examples: ["pnpm gateway account list"],
    done: "Contas (da mais antiga à mais nova):",
    empty: 'Nenhuma conta cadastrada: crie uma com pnpm gateway account create --name "Nome da conta".',
  },
  "account create": {
    summary: "Cria uma conta.",
    options: { name: { value: "NOME", required: true, help: "nome da conta" } },
    examples: ['pnpm gateway account create --name "Padaria Pão Quente"'],
    done: "Conta criada.",
  },
  "number list": {
    summary: "Lista os números do WhatsApp Business de uma conta, ou de todas.",
    options: {
      account: { value: "ID", kind: "uuid", help: "só os números desta conta; sem --account, os de todas as contas" },
    },
    notes: [
      "O número padrão de cada conta vem primeiro; phone_number_id é o que number set-rate e number",
      "marketing-messages pedem. marketing_messages on: os templates de marketing do número vão pela API de",
      "Mensagens de Marketing da Meta (number marketing-messages).",
    ],
    examples: ["pnpm gateway number list", `pnpm gateway number list --account ${ACCOUNT}`],
    done: "Números do WhatsApp Business (o padrão de cada conta primeiro):",
    empty: "Nenhum número conectado: conecte um com pnpm gateway number add.",
  },
  "number add": {
    summary: "Conecta um número do WhatsApp Business a uma conta.",
    options: {
      account: accountOption(),
      "phone-number-id": { value: "ID", required: true, help: "phone_number_id do número na Meta" },
      "waba-id": { value: "ID", required: true, help: "id da conta do WhatsApp Business (WABA) na Meta" },
      display: { value: "NÚMERO", required: true, help: "número como é exibido, ex.: +55 11 4000-1234" },
      default: { help: "torna este o número padrão da conta (o primeiro número da conta já é)" },
    },
    examples: [
      `pnpm gateway number add --account ${ACCOUNT} --phone-number-id 106540352242922 \\\n      --waba-id 102290129340398 --display "+55 11 4000-1234"`,
    ],
    done: "Número conectado.",
  },
  "number set-rate": {
    summary: "Define a vazão de mensagens por segundo de um número (a que a Meta concedeu a ele).",
    options: {
      "phone-number-id": { value: "ID", required: true, help: "phone_number_id do número na Meta" },
      rate: {
        value: "N",
        required: true,
        kind: "integer",
        help: "mensagens por segundo, de 1 a 1000 (80 é o padrão da Meta; 20 para número compartilhado com o app)",
      },
    },
    notes: [
      "Todo envio do número (API pública e campanhas) é ritmado por essa vazão, compartilhada por todos os pods.",
      "Os pods passam a usar o novo valor assim que a mudança é gravada (aviso pelo PostgreSQL; se o aviso se perder,",
      "em até NUMBER_CACHE_TTL_MS, 30 s por padrão). A Meta também eleva a 1000 o número que recebe THROUGHPUT_UPGRADE.",
    ],
    examples: ["pnpm gateway number set-rate --phone-number-id 106540352242922 --rate 1000"],
    done: "Vazão do número alterada.",
  },
  "number marketing-messages": {
    summary: "Liga ou desliga a API de Mensagens de Marketing da Meta para os templates de marketing de um número.",
    options: {
      "phone-number-id": { value: "ID", required: true, help: "phone_number_id do número na Meta" },
      state: {
        value: "on|off",
        required: true,
        help: "on: os templates de marketing do número vão pela API de Mensagens de Marketing; off: pela Cloud API (o padrão)",
      },
    },
    notes: [
      "Com on, os templates da categoria MARKETING do número (API pública e campanhas) vão por",
      "POST /{phone_number_id}/marketing_messages, que a Meta cobra como marketing_lite; as demais mensagens",
      "continuam pela Cloud API (/messages). Ligue só depois que a empresa concluir a adesão a essa API na Meta: uma",
      "recusa dela é devolvida como veio, e a mensagem nunca é reenviada pela Cloud API.",
      "A mudança vale para a conta dona do número, em todos os pods a partir do envio seguinte, e fica na auditoria",
      "como cli.number.marketing_messages (só quando muda). A conta também a muda pelo painel (Números) e por",
      "PATCH /public/v1/numbers/{phone_number_id}.",
    ],
    examples: [
      "pnpm gateway number marketing-messages --phone-number-id 106540352242922 --state on",
      "pnpm gateway number marketing-messages --phone-number-id 106540352242922 --state off",
    ],
    done: "API de Mensagens de Marketing do número alterada.",
  },
  "account unblock": {
    summary: "Libera os envios de uma WABA que a Meta desativou ou desconectou (quando a reativação não chegou).",
    options: {
      account: accountOption(),
      "waba-id": { value: "ID", required: true, help: "id da conta do WhatsApp Business (WABA) na Meta" },
    },
    notes: [
      "Os envios da WABA ficam bloqueados (account_disabled) quando a Meta a desativa, exclui ou desconecta, e voltam",
      "sozinhos quando a Meta a reativa ou reconecta. Use este comando só quando a Meta confirmou a volta e o aviso",
      "dela não chegou. As campanhas pausadas continuam pausadas: retome-as no painel ou na API.",
    ],
    examples: [`pnpm gateway account unblock --account ${ACCOUNT} --waba-id 102290129340398`],
    done: "Envios da WABA liberados.",
  },
  "key list": {
    summary: "Lista as chaves de API de uma conta, da mais nova à mais antiga, revogadas inclusive.",
    options: { account: accountOption() },
    notes: [
      "Nunca mostra a chave: só o hash dela é guardado. O prefixo (o começo da chave) ajuda a reconhecê-la; scopes",
      '"all" é uma chave com todas as permissões. revoked_at preenchido: a chave foi revogada e a API a recusa.',
    ],
    examples: [`pnpm gateway key list --account ${ACCOUNT}`],
    done: "Chaves de API da conta (da mais nova à mais antiga):",
    empty: "Esta conta não tem chaves de API: crie uma com pnpm gateway key create.",
  },
  "key create": {
    summary: "Cria uma chave de API e a mostra uma única vez.",
    options: {
      account: accountOption(),
      scopes: {
        value: "PERMISSÕES",
        help: "permissões separadas por vírgula: messages:send, messages:read, orders:write, media:write, integrations:manage e usage:read; sem a opção (ou com todas), a chave tem todas, inclusive as que vierem",
      },
    },
    notes: [
      "Só o hash da chave é guardado: se ela se perder, crie outra e revogue a antiga.",
      "A chave só faz o que as permissões dela permitem (o resto a API recusa com 403 insufficient_scope): o plugin",
      "de uma loja que envia mensagens de pedidos precisa de --scopes messages:send,orders:write, não de",
      "integrations:manage.",
    ],
    examples: [`pnpm gateway key create --account ${ACCOUNT}`],
    done: "Chave de API criada.",
    after: "Guarde a chave agora: ela não será mostrada de novo.",
  },
  "key revoke": {
    summary: "Revoga uma chave de API (as requisições com ela passam a receber 401).",
    options: { id: { value: "ID", required: true, kind: "uuid", help: "id (UUID) da chave, impresso por key create" } },
    examples: [`pnpm gateway key revoke --id ${KEY}`],
    done: "Chave revogada.",
  },
  "integration list": {
    summary: "Lista as integrações de webhooks de uma conta, da mais antiga à mais nova (sem os segredos).",
    options: { account: accountOption() },
    notes: [
      "active não: pausada; disabled_at preenchido: o gateway a desativou depois de falhar pelo prazo configurado",
      "(reative com integration enable). O signing_secret nunca aparece aqui: ele só é mostrado na criação e na",
      "troca (integration rotate-secret).",
    ],
    examples: [`pnpm gateway integration list --account ${ACCOUNT}`],
    done: "Integrações da conta (da mais antiga à mais nova):",
    empty: "Esta conta não tem integrações: crie uma com pnpm gateway integration set.",
  },
  "integration set": {
    summary: "Cria ou atualiza a integração de webhooks de uma conta para uma URL.",
    options: {
      account: accountOption(),
      url: { value: "URL", required: true, help: "endpoint https:// do integrador que recebe os webhooks" },
      events: {
        value: "EVENTOS",
        required: true,
        help: "eventos separados por vírgula: message.status, message.received, account.update (avisos da Meta sobre a conta e os números), order.updated (mudanças dos pedidos Pix), conversation.handover (a Meta passou a conversa entre apps) e conversation.updated (quem atende o cliente mudou); os quatro últimos só quem os escolhe recebe",
      },
      inactive: { help: "salva a integração desativada" },
      ordered: {
        help: "entrega em ordem por mensagem: os eventos de uma mensagem (e as mensagens recebidas de um contato) chegam na ordem, o seguinte espera o anterior ser entregue ou falhar",
      },
      unordered: { help: "desliga a entrega em ordem (as entregas seguradas saem em seguida)" },
      "signature-scheme": {
        value: "ESQUEMA",
        help: "como os webhooks são assinados: pt (X-PT-Signature, o padrão) ou standard-webhooks (webhook-signature, verificável com as bibliotecas oficiais do Standard Webhooks)",
      },
      "payload-version": {
        value: "VERSÃO",
        help: "conteúdo de message.received: 1 (o do contrato) ou 2 (o padrão numa integração nova: com a opção escolhida, localização, contatos, reações, anúncio de origem e o SHA-256 da mídia)",
      },
    },
    notes: [
      "Ao criar a integração, mostra o signing_secret dela: o integrador o usa para verificar o",
      "cabeçalho X-PT-Signature, ou, no esquema standard-webhooks, o cabeçalho webhook-signature (o segredo então",
      "aparece como whsec_ seguido de base64, a forma que as bibliotecas do Standard Webhooks aceitam).",
      "Chamado de novo com a mesma URL, atualiza os eventos e o estado (ativa ou não) sem trocar o segredo e sem",
      "mostrá-lo, como a API: um segredo novo vem de integration rotate-secret. O esquema só muda quando",
      "--signature-scheme é informado (a integração nova começa em pt).",
      "A URL deve ser https:// de um endereço público; com WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (só em",
      "desenvolvimento) também vale http:// e endereços locais ou privados; link-local e metadados de nuvem, nunca.",
      "Sem --ordered nem --unordered, a entrega em ordem fica como está (desligada numa integração nova).",
      "Sem --payload-version, a versão fica como está (2 numa integração nova); as entregas já criadas mantêm a sua.",
    ],
    examples: [
      `pnpm gateway integration set --account ${ACCOUNT} --url https://exemplo.com.br/webhooks \\\n      --events message.status,message.received`,
      `pnpm gateway integration set --account ${ACCOUNT} --url https://exemplo.com.br/webhooks \\\n      --events message.status --inactive`,
      `pnpm gateway integration set --account ${ACCOUNT} --url https://exemplo.com.br/webhooks \\\n      --events message.status,message.received --signature-scheme standard-webhooks`,
      `pnpm gateway integration set --account ${ACCOUNT} --url https://exemplo.com.br/webhooks \\\n      --events message.status,message.received --payload-version 2`,
    ],
    done: "Integração salva.",
    after: (saved) =>
      "signing_secret" in saved
        ? "Entregue o signing_secret ao integrador por um canal seguro."
        : "Integração atualizada: o signing_secret continua o mesmo e só é mostrado na criação e na troca. Para um " +
          `novo: pnpm gateway integration rotate-secret --integration ${String(saved.id)}`,
  },
  "integration rotate-secret": {
    summary: "Troca o segredo de assinatura (signing_secret) de uma integração.",
    options: {
      integration: INTEGRATION_OPTION,
      "overlap-hours": {
        value: "HORAS",
        help: "por quantas horas o segredo anterior continua valendo (padrão 24, no máximo 168; 0 encerra na hora)",
      },
    },
    notes: [
      "Os webhooks enviados a partir de agora são assinados com o novo segredo (X-PT-Signature). Durante a",
      "sobreposição também levam X-PT-Signature-Previous, assinado com o segredo anterior, para que o receptor",
      "ainda configurado com ele continue verificando as entregas (no esquema standard-webhooks, o cabeçalho",
      "webhook-signature leva as duas assinaturas, separadas por espaço). Segredo vazado: use --overlap-hours 0.",
    ],
    examples: [
      `pnpm gateway integration rotate-secret --integration ${INTEGRATION}`,
      `pnpm gateway integration rotate-secret --integration ${INTEGRATION} --overlap-hours 0`,
    ],
    done: "Segredo de assinatura trocado.",
    after: "Entregue o novo signing_secret ao integrador por um canal seguro.",
  },
  "integration enable": {
    summary: "Reativa uma integração que o gateway desativou (todas as tentativas falharam pelo prazo configurado).",
    options: {
      account: accountOption("da integração"),
      integration: INTEGRATION_OPTION,
    },
    notes: [
      "Depois de corrigir o endpoint. As entregas que aguardavam voltam a ser enviadas, cada uma com um novo ciclo de",
      "tentativas automáticas (X-PT-Attempt continua contando): o dispatcher as enfileira na sua varredura seguinte.",
      "Uma integração que não está desativada fica como está. Fica na auditoria como integration.enabled (ator cli),",
      "como o botão Reativar do painel e POST /public/v1/integrations/{id}/enable.",
    ],
    examples: [`pnpm gateway integration enable --account ${ACCOUNT} --integration ${INTEGRATION}`],
    done: "Integração reativada.",
  },
  "secrets rotate-key": {
    summary: "Recifra os segredos guardados (signing_secret das integrações) com a chave atual do SECRETS_KEYS.",
    options: {
      "batch-size": {
        value: "N",
        kind: "integer",
        help: "integrações por transação (padrão 200, no máximo 5000)",
      },
    },
    notes: [
      "A chave atual é a primeira de SECRETS_KEYS (id:chave-base64,...); as demais só decifram. O comando cifra os",
      "segredos ainda em texto claro (guardados antes da cifragem), recifra os que estão sob outra chave e apaga os",
      "segredos anteriores cuja sobreposição acabou. Pode ser repetido: uma segunda execução não encontra nada a fazer.",
      "Trocar a chave: acrescente a nova em SECRETS_KEYS depois da atual e reinicie todos os processos; ponha-a em",
      "primeiro e reinicie de novo; rode este comando; só então remova a chave antiga.",
      "Um segredo que não pode ser decifrado (chave ausente ou valor alterado) fica como está e o comando sai com 1.",
    ],
    examples: ["SECRETS_KEYS=k2027:...,k2026:... pnpm gateway secrets rotate-key"],
    done: "Segredos recifrados com a chave atual.",
  },
  "user create": {
    summary:
      "Cria um usuário do painel web numa conta (em geral o primeiro owner; os demais são convidados no painel).",
    options: {
      account: accountOption(),
      email: { value: "EMAIL", required: true, help: "e-mail usado para entrar no painel" },
      name: { value: "NOME", help: "nome exibido (padrão: o e-mail)" },
      role: { value: "PAPEL", help: "owner (padrão), admin, viewer ou agente (atende as conversas)" },
    },
    notes: [
      "A senha vem da variável GATEWAY_USER_PASSWORD (mínimo 10 caracteres); sem ela, uma senha aleatória é",
      "gerada e mostrada uma única vez. Nunca passe a senha na linha de comando (ela ficaria no histórico).",
    ],
    examples: [`pnpm gateway user create --account ${ACCOUNT} --email dona@padaria.com.br --name "Ana"`],
    done: "Usuário do painel criado.",
    after: "Entregue a senha por um canal seguro; ela não será mostrada de novo.",
  },
  "audit list": {
    summary: "Lista a auditoria de uma conta, do registro mais recente ao mais antigo.",
    options: {
      account: accountOption(),
      limit: { value: "N", kind: "integer", help: "quantos registros (padrão 100, no máximo 1000)" },
    },
    examples: [`pnpm gateway audit list --account ${ACCOUNT} --limit 20`],
    done: "Auditoria da conta (do mais recente ao mais antigo):",
    empty: "Nenhum registro de auditoria para esta conta.",
  },
  "pricing rates": {
    summary: "Lista a tabela de preços por mensagem (em reais) com que o gateway estima os custos.",
    options: {
      account: {
        value: "ID",
        kind: "uuid",
        help: "inclui as tarifas próprias desta conta (que valem sobre as da instalação)",
      },
    },
    notes: [
      "Só mensagens que a Meta cobra (pricing.type regular) custam; cada dia usa a tarifa mais recente em vigor nele.",
      'A origem dos valores padrão e a data estão em docs/decisions.md ("Per-message pricing and costs").',
    ],
    examples: ["pnpm gateway pricing rates", `pnpm gateway pricing rates --account ${ACCOUNT}`],
    done: "Tabela de preços (por categoria e data de início):",
    empty: "Nenhuma tarifa cadastrada: todas as mensagens cobradas custariam R$ 0.",
  },
  "pricing set-rate": {
    summary: "Define o preço em reais de uma mensagem cobrada de uma categoria, a partir de uma data.",
    options: {
      category: {
        value: "CATEGORIA",
        required: true,
        help: "como a Meta a envia em pricing.category: marketing, utility, authentication, authentication-international, service...",
      },
      rate: {
        value: "REAIS",
        required: true,
        help: "preço por mensagem, com ponto e até 4 casas decimais (ex.: 0.3350)",
      },
      from: { value: "DATA", required: true, help: "primeiro dia em que vale (AAAA-MM-DD, horário de Brasília)" },
      account: { value: "ID", kind: "uuid", help: "tarifa só desta conta; sem --account, a de toda a instalação" },
    },
    notes: [
      "Os dias anteriores a --from mantêm a tarifa que tinham: uma tabela nova da Meta entra com a data em que passa",
      "a valer, e o histórico não muda. A mesma categoria e data substitui a tarifa. Fica na auditoria.",
    ],
    examples: [
      "pnpm gateway pricing set-rate --category marketing --rate 0.3350 --from 2027-01-01",
      `pnpm gateway pricing set-rate --category utility --rate 0.0300 --from 2027-01-01 --account ${ACCOUNT}`,
    ],
    done: "Tarifa definida.",
  },
  "pricing remove-rate": {
    summary: "Remove a tarifa de uma categoria a partir de uma data (um lançamento errado).",
    options: {
      category: { value: "CATEGORIA", required: true, help: "categoria da tarifa" },
      from: { value: "DATA", required: true, help: "data de início da tarifa (AAAA-MM-DD)" },
      account: { value: "ID", kind: "uuid", help: "remove a tarifa desta conta; sem --account, a da instalação" },
    },
    notes: ["Os dias que ela cobria passam a usar a tarifa anterior da mesma categoria. Fica na auditoria."],
    examples: ["pnpm gateway pricing remove-rate --category marketing --from 2027-01-01"],
    done: "Tarifa removida.",
  },
  "delivery retry": {
    summary: "Reenfileira uma entrega de webhook com status failed ou delivered (exige REDIS_URL).",
    options: {
      account: accountOption("da entrega"),
      id: { value: "ID", required: true, kind: "integer", help: "id da entrega (X-PT-Delivery-Id)" },
    },
    notes: [
      "É o reenvio pelo painel: fica na auditoria como webhook.retry, com ator cli.",
      "Com o Redis fora do ar o reenvio fica registrado como pendente e o reconciliador do dispatcher o enfileira.",
    ],
    examples: [`REDIS_URL=redis://127.0.0.1:56379 pnpm gateway delivery retry --account ${ACCOUNT} --id 42`],
    done: "Entrega reenfileirada.",
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

function specOf(command: CommandName): CommandSpec {
  return COMMANDS[command];
}

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];
const GROUPS = [...new Set(COMMAND_NAMES.map((name) => name.split(" ")[0] ?? name))];

function commandsOf(group: string): CommandName[] {
  return COMMAND_NAMES.filter((name) => name.startsWith(`${group} `));
}

/** Options every command takes. */
const GLOBAL_OPTIONS = {
  json: { help: "resultado em JSON, para scripts (o padrão quando a saída não é um terminal)" },
  "no-json": { help: "resultado em texto legível (o padrão em um terminal)" },
  help: { help: "mostra a ajuda" },
} as const satisfies Record<string, OptionSpec>;

// What node:util parseArgs needs to know to split the arguments: which options take a value. Validation is ours
// (below), so that every mistake gets a Portuguese message naming the command.
const PARSE_OPTIONS: Record<string, { type: "string" | "boolean"; short?: string }> = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  "no-json": { type: "boolean" },
};
for (const command of COMMAND_NAMES) {
  for (const [name, option] of Object.entries(specOf(command).options)) {
    PARSE_OPTIONS[name] = { type: option.value ? "string" : "boolean" };
  }
}

function tokenize(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: PARSE_OPTIONS, strict: false, allowPositionals: true, tokens: true })
    .tokens;
}

/** `--json` → "json", `--no-json` → "text" (the last one given wins); undefined when neither was given. */
export function requestedFormat(argv: readonly string[]): "json" | "text" | undefined {
  let format: "json" | "text" | undefined;
  for (const token of tokenize(argv)) {
    if (token.kind !== "option") continue;
    // `--name --json` is a mistake (parseArgs takes "--json" as the name), but the error still goes out as asked.
    const flag = token.inlineValue === false && token.value?.startsWith("--") ? token.value.slice(2) : token.name;
    if (flag === "json") format = "json";
    if (flag === "no-json") format = "text";
  }
  return format;
}

export interface Invocation {
  kind: "run";
  command: CommandName;
  /** Options that take a value, trimmed and checked. */
  values: Readonly<Partial<Record<string, string>>>;
  /** Flags given (`default`, `inactive`). */
  flags: ReadonlySet<string>;
}

export interface HelpRequest {
  kind: "help";
  text: string;
}

/** Read argv (without `node main.ts`): a command to run, or a request for help. Throws UsageError. */
export function parseInvocation(argv: readonly string[]): Invocation | HelpRequest {
  const tokens = tokenize(argv);
  const positionals = tokens.flatMap((t) => (t.kind === "positional" ? [t.value] : []));
  const wantsHelp = tokens.some((t) => t.kind === "option" && t.name === "help") || positionals[0] === "help";
  if (wantsHelp) return { kind: "help", text: helpFor(positionals[0] === "help" ? positionals.slice(1) : positionals) };

  const command = resolveCommand(positionals);
  const spec = specOf(command);
  const values: Record<string, string> = {};
  const flags = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const name = token.name;
    const option: OptionSpec | undefined = Object.hasOwn(GLOBAL_OPTIONS, name)
      ? GLOBAL_OPTIONS[name as keyof typeof GLOBAL_OPTIONS]
      : Object.hasOwn(spec.options, name)
        ? spec.options[name]
        : undefined;
    if (!option) {
      throw new UsageError(
        Object.hasOwn(PARSE_OPTIONS, name)
          ? `A opção ${token.rawName} não se aplica a ${command}.`
          : `Opção desconhecida: ${token.rawName}`,
        command,
      );
    }
    if (!option.value) {
      if (token.value !== undefined) throw new UsageError(`A opção ${token.rawName} não aceita valor.`, command);
      flags.add(name);
      continue;
    }
    // parseArgs takes the next argument as the value even when it looks like an option (`--name --json`).
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith("-"))) {
      throw new UsageError(
        `A opção --${name} precisa de um valor: --${name} ${option.value} (um valor que começa com "-" vai como --${name}=-valor).`,
        command,
      );
    }
    if (values[name] !== undefined) throw new UsageError(`A opção --${name} foi informada mais de uma vez.`, command);
    const value = token.value.trim();
    if (value === "") throw new UsageError(`A opção --${name} não pode ser vazia.`, command);
    if (option.kind === "uuid" && !UUID.test(value)) {
      throw new UsageError(`--${name} deve ser um UUID, como ${UUID_EXAMPLE}.`, command);
    }
    if (option.kind === "integer" && !/^[1-9]\d*$/.test(value)) {
      throw new UsageError(`--${name} deve ser um inteiro positivo.`, command);
    }
    values[name] = value;
  }

  // After the options: `--nam X` is reported as the unknown option it is, not as a stray "X".
  const extra = positionals[2];
  if (extra !== undefined) throw new UsageError(`Argumento inesperado: ${extra}`, command);

  const missing = Object.entries(spec.options)
    .filter(([name, option]) => option.required && values[name] === undefined)
    .map(([name]) => `--${name}`);
  if (missing.length === 1) throw new UsageError(`Opção obrigatória ausente: ${missing.join("")}`, command);
  if (missing.length > 1) throw new UsageError(`Opções obrigatórias ausentes: ${missing.join(", ")}`, command);
  return { kind: "run", command, values, flags };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function resolveCommand(positionals: readonly string[]): CommandName {
  const [group, sub] = positionals;
  if (group === undefined) throw new UsageError(`Informe um comando: ${COMMAND_NAMES.join(", ")}.`);
  if (!GROUPS.includes(group)) throw new UsageError(`Comando desconhecido: ${group}`);
  const name = `${group} ${sub ?? ""}`.trim();
  if (isCommand(name)) return name;
  const options = commandsOf(group)
    .map((c) => c.slice(group.length + 1))
    .join(", ");
  throw new UsageError(
    sub === undefined
      ? `Informe o subcomando de ${group}: ${options}.`
      : `Comando desconhecido: ${name} (os de ${group} são: ${options})`,
    group,
  );
}

// ---- help text ----

const PROGRAM = "pnpm gateway";

function usageLine(command: CommandName): string {
  const parts = Object.entries(specOf(command).options).map(([name, option]) => {
    const text = option.value ? `--${name} ${option.value}` : `--${name}`;
    return option.required ? text : `[${text}]`;
  });
  return [PROGRAM, command, ...parts].join(" ");
}

function table(rows: readonly (readonly [string, string])[], indent = "  "): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}   ${right}`.trimEnd());
}

const OUTPUT_AND_EXIT = [
  "Saída:",
  "  Em um terminal, o resultado sai em texto legível. Com --json, ou quando a saída vai para um pipe ou",
  '  arquivo, sai em JSON no stdout, e um erro sai como {"error": "..."} no stderr: scripts devem passar',
  "  --json. --no-json força o texto. A ajuda é sempre texto.",
  "",
  "Códigos de saída:",
  "  0   sucesso",
  "  1   falha ao executar: banco de dados inacessível, erro inesperado (tentar de novo pode resolver)",
  "  2   erro de uso: comando, opção ou valor inválido, variável de ambiente inválida ou id que não existe",
];

function generalHelp(): string {
  return [
    `${PROGRAM}: CLI de operação do gateway (contas, números, chaves de API, integrações de webhook, segredos).`,
    "",
    "Uso:",
    `  ${PROGRAM} <comando> [opções]`,
    `  ${PROGRAM} <comando> --help      ajuda de um comando (também: ${PROGRAM} help <comando>)`,
    "",
    "Comandos:",
    ...table(COMMAND_NAMES.map((name) => [name, specOf(name).summary])),
    "",
    "Opções de todos os comandos:",
    ...table(GLOBAL_OPTION_ROWS),
    "",
    ...OUTPUT_AND_EXIT,
    "",
    "Ambiente:",
    ...table([
      ["DATABASE_URL", "banco do gateway (padrão: o do npm start, postgresql://postgres@127.0.0.1:55432/gateway)"],
      ["REDIS_URL", "Redis do gateway; necessário só para delivery retry"],
      ["REDIS_KEY_PREFIX", "prefixo das chaves no Redis (padrão: gw)"],
      [
        "SECRETS_KEYS",
        "chaves que cifram os segredos guardados; necessária para integration set, rotate-secret e secrets " +
          "(em desenvolvimento, sem ela: as do npm start, em .data/secrets-keys, se o banco tem a marca que o npm start " +
          "grava nele e NODE_ENV não é production)",
      ],
      [
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
        "true só em desenvolvimento: integration set aceita http:// e endereços locais (o padrão quando a CLI " +
          "usa as chaves do npm start)",
      ],
    ]),
    "",
    "Exemplos:",
    `  ${PROGRAM} account list`,
    `  ${PROGRAM} account create --name "Padaria Pão Quente"`,
    `  ${PROGRAM} key create --account ${UUID_EXAMPLE}`,
    `  ${PROGRAM} audit list --account ${UUID_EXAMPLE} --limit 20 --json`,
    `  ${PROGRAM} integration set --help`,
    "",
  ].join("\n");
}

const GLOBAL_OPTION_ROWS: readonly (readonly [string, string])[] = [
  ["--json", GLOBAL_OPTIONS.json.help],
  ["--no-json", GLOBAL_OPTIONS["no-json"].help],
  ["-h, --help", GLOBAL_OPTIONS.help.help],
];

function groupHelp(group: string): string {
  const commands = commandsOf(group);
  return [
    `${PROGRAM} ${group}: ${commands.length} comandos.`,
    "",
    "Uso:",
    ...commands.map((c) => `  ${usageLine(c)}`),
    "",
    "Comandos:",
    ...table(commands.map((c) => [c, specOf(c).summary])),
    "",
    `Ajuda de cada um: ${PROGRAM} ${commands[0] ?? group} --help`,
    "",
  ].join("\n");
}

function commandHelp(command: CommandName): string {
  const spec = specOf(command);
  const optionRows = Object.entries(spec.options).map(([name, option]): [string, string] => [
    option.value ? `--${name} ${option.value}` : `--${name}`,
    `${option.required ? "(obrigatória) " : ""}${option.help}`,
  ]);
  return [
    `${PROGRAM} ${command}: ${spec.summary}`,
    "",
    "Uso:",
    `  ${usageLine(command)} [--json | --no-json]`,
    "",
    "Opções:",
    ...table([...optionRows, ...GLOBAL_OPTION_ROWS]),
    ...(spec.notes ? ["", ...spec.notes] : []),
    "",
    spec.examples.length > 1 ? "Exemplos:" : "Exemplo:",
    ...spec.examples.map((example) => `  ${example}`),
    "",
    `Saída e códigos de saída: ${PROGRAM} --help`,
    "",
  ].join("\n");
}

/** The help for `help [topic...]` / `[topic...] --help`: general, one group's, or one command's. */
function helpFor(topic: readonly string[]): string {
  const [group, sub] = topic;
  if (group === undefined) return generalHelp();
  if (!GROUPS.includes(group)) throw new UsageError(`Comando desconhecido: ${group}`);
  if (sub === undefined) return groupHelp(group);
  const name = `${group} ${sub}`;
  if (!isCommand(name)) throw new UsageError(`Comando desconhecido: ${name}`, group);
  return commandHelp(name);
}

/** The `--help` to point at after a usage error about `command` (a command, a group, or nothing). */
export function helpHint(command: string | undefined): string {
  return `Veja: ${PROGRAM}${command ? ` ${command}` : ""} --help`;
}
