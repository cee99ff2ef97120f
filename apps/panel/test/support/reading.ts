import type { Page } from "playwright-core";

// What a shop owner reads on a page (issue 38, items 6–8): the visible text of <main> and the header, without the
// codes pages keep for integrators (`<code>`, `small.code`, `<pre>` examples, the `.integrator` event catalogue)
// and without titles.

/**
 * The codes the glossary labels, which must never be the words a page shows (only a detail). A role is matched as
 * a role, not a word: the seeded users are named "owner 1a2b3c".
 */
const RAW_CODES: readonly [string, RegExp][] = [
  ...[
    "client_ref",
    "free_customer_service",
    "regular",
    "pricing",
    "invalid_recipient",
    "connection_refused",
    "phone_number_id",
  ].map((code): [string, RegExp] => [code, new RegExp(`(^|[^\\w.])${code}($|[^\\w])`)]),
  ["(owner)", /\((owner|admin|viewer)\)/],
  ["o owner", /\b(o|os) owners?\b/],
  ["pnpm gateway", /pnpm gateway/],
  ["nada a desenhar", /nada a desenhar/],
  ["wamid", /\bwamid\./],
  ["Pedido pedido-", /Pedido pedido-/],
];

/** The page's visible text without the integrators' details, spaces folded. */
export async function shopOwnerText(page: Page): Promise<string> {
  const text = await page.evaluate(`(() => {
    const copy = document.body.cloneNode(true);
    copy.querySelectorAll("code, small.code, pre, script, .skip, .integrator").forEach((node) => node.remove());
    // innerText of a detached node has no layout; textContent with the blocks spaced is enough here.
    copy.querySelectorAll("td, th, dd, dt, p, li, div, h1, h2, h3, span, a, label, option, summary, caption")
      .forEach((node) => node.append(" "));
    return copy.textContent;
  })()`);
  return String(text).replace(/\s+/g, " ").trim();
}

/** The raw codes found in `text`. */
export function rawCodesIn(text: string): string[] {
  return RAW_CODES.filter(([, pattern]) => pattern.test(text)).map(([code]) => code);
}

/** A count's word, singular and plural. */
const WORDS: readonly [string, string][] = [
  ["enviada", "enviadas"],
  ["entregue", "entregues"],
  ["lida", "lidas"],
  ["pendente", "pendentes"],
  ["falhou", "falharam"],
  ["entrega aguarda", "entregas aguardam"],
  ["mensagem do contato", "mensagens do contato"],
];

/** Counts whose word does not agree with them: "9 lida", "1 entregues", "3 falhou". */
export function pluralMistakes(text: string): string[] {
  const mistakes: string[] = [];
  const alternatives = WORDS.flat()
    .sort((a, b) => b.length - a.length)
    .join("|");
  for (const match of text.matchAll(new RegExp(`(?<![\\d,/:])(\\d[\\d.]*) (${alternatives})(?![\\wà-ú])`, "g"))) {
    const count = Number((match[1] ?? "").replace(/\./g, ""));
    const isPlural = WORDS.some(([, other]) => other === match[2]);
    if ((count === 1) === isPlural) mistakes.push(match[0]);
  }
  return mistakes;
}

/**
 * How much wider than the screen the page is, and its widest culprit (an element past the right edge that no
 * scrolling box holds): null when it fits.
 */
export async function pageOverflow(page: Page): Promise<string | null> {
  const found = await page.evaluate<string | null>(`(() => {
    const root = document.documentElement;
    const overflow = root.scrollWidth - root.clientWidth;
    if (overflow <= 0) return null;
    const scrolls = (node) => {
      for (let p = node.parentElement; p; p = p.parentElement) {
        const x = getComputedStyle(p).overflowX;
        if (x === "auto" || x === "scroll" || x === "hidden") return true;
      }
      return false;
    };
    let culprit = "";
    let widest = 0;
    for (const node of document.body.querySelectorAll("*")) {
      const right = node.getBoundingClientRect().right;
      if (right > root.clientWidth && right > widest && !scrolls(node)) {
        widest = right;
        culprit = node.tagName.toLowerCase() + (node.className ? "." + String(node.className).replace(/ /g, ".") : "");
      }
    }
    return overflow + "px, " + culprit;
  })()`);
  return found;
}
