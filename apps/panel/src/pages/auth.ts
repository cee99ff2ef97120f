import type { Request, Response, Router } from "express";
import {
  MIN_PASSWORD_LENGTH,
  acceptPanelInvite,
  authenticatePanelUser,
  confirmPanelPassword,
  createPanelSession,
  deletePanelSession,
  findPanelInvite,
  markPanelSessionReauthenticated,
} from "@gw/core/users";
import { z } from "@gw/config";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { CONFIRM_PASSWORD_PATH } from "../http/reauth.ts";
import { clearSessionCookie, csrfToken, sessionToken, setSessionCookie, type SessionOptions } from "../http/session.ts";
import { retryInMinutes } from "../http/throttle.ts";
import { csrfField, noticeFrom } from "../views/components.ts";
import { html } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const signInForm = z.object({
  email: z.string().trim().max(254),
  password: z.string().max(1024),
  next: z.string().max(2048).optional(),
});

const inviteForm = z.object({
  name: z.string().trim().min(1).max(120),
  password: z.string().max(1024),
  password_confirmation: z.string().max(1024),
});

/** Only a path of this panel: never `//host` or `https://…` (no open redirect after sign-in). */
function safeNext(value: string | undefined): string {
  return value && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}

const MESSAGES = { saiu: "Você saiu do painel." };

interface SignInState {
  email?: string;
  next?: string;
  error?: string;
}

function signInPage(req: Request, res: Response, session: SessionOptions, options: SignInState): string {
  return page(req, {
    title: "Entrar",
    notice: options.error ? { kind: "error", text: options.error } : noticeFrom(req, MESSAGES),
    body: html`<form method="post" action="/entrar" class="stack">
      <input type="hidden" name="_csrf" value="${csrfToken(req, res, session)}" />
      <input type="hidden" name="next" value="${options.next ?? ""}" />
      <label
        >E-mail <input type="email" name="email" autocomplete="username" required value="${options.email ?? ""}"
      /></label>
      <label>Senha <input type="password" name="password" autocomplete="current-password" required /></label>
      <button type="submit">Entrar</button>
    </form>`,
  }).value;
}

/** The 429 of an attempt the sign-in throttle refused: `Retry-After`, and the page saying when to try again. */
function sendThrottled(res: Response, retryAfterSeconds: number, page: (wait: string) => string): void {
  res.setHeader("Retry-After", String(retryAfterSeconds));
  res
    .status(429)
    .type("html")
    .send(page(retryInMinutes(retryAfterSeconds)));
}

async function startSession(deps: PanelDeps, res: Response, userId: string): Promise<void> {
  const { token } = await createPanelSession(
    { db: deps.db },
    { userId, ttlMs: deps.session.ttlMs, maxAgeMs: deps.session.maxAgeMs },
  );
  setSessionCookie(res, deps.session, token);
}

export const authPages: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    const form = (req: Request, res: Response, state: SignInState) => signInPage(req, res, deps.session, state);

    router.get("/entrar", (req, res) => {
      if (req.panelUser) return res.redirect(303, "/");
      const next = typeof req.query.next === "string" ? req.query.next : undefined;
      res.type("html").send(form(req, res, next === undefined ? {} : { next }));
    });

    router.post("/entrar", async (req, res) => {
      const parsed = signInForm.safeParse(req.body);
      if (!parsed.success) throw new PanelHttpError(400, "Preencha e-mail e senha.");
      const { email, password, next } = parsed.data;
      const normalized = email.toLowerCase();
      // A point is taken before the password is checked (http/throttle.ts): parallel guesses cannot overrun it.
      const admission = await deps.throttle.admit(normalized, req.ip ?? "unknown");
      if (!admission.admitted)
        return sendThrottled(res, admission.retryAfterSeconds, (wait) =>
          form(req, res, {
            email,
            ...(next === undefined ? {} : { next }),
            error: `Muitas tentativas de entrada. ${wait}`,
          }),
        );
      const user = await authenticatePanelUser(
        { db: deps.db, logger: deps.logger },
        { email: normalized, password, requestId: req.requestId },
      );
      if (!user) {
        res
          .status(401)
          .type("html")
          .send(
            form(req, res, { email, ...(next === undefined ? {} : { next }), error: "E-mail ou senha incorretos." }),
          );
        return;
      }
      await admission.attempt.succeeded({ clearEmail: true });
      await startSession(deps, res, user.id);
      res.redirect(303, safeNext(next));
    });

    router.post("/sair", async (req, res) => {
      const token = sessionToken(req, deps.session);
      if (token) await deletePanelSession({ db: deps.db }, { token, requestId: req.requestId });
      clearSessionCookie(res, deps.session);
      res.redirect(303, "/entrar?ok=saiu");
    });

    router.get("/convite/:token", async (req, res) => {
      const invite = await findPanelInvite({ db: deps.db }, { token: req.params.token });
      if (!invite) throw new PanelHttpError(404, "Este convite não é válido: já foi usado ou expirou.");
      res.type("html").send(
        page(req, {
          title: "Aceitar convite",
          body: html`<p>Convite para <strong>${invite.email}</strong> (papel ${invite.role}).</p>
            <form method="post" action="/convite/${req.params.token}" class="stack">
              <input type="hidden" name="_csrf" value="${csrfToken(req, res, deps.session)}" />
              <label>Seu nome <input name="name" autocomplete="name" required maxlength="120" /></label>
              <label
                >Senha (mínimo ${MIN_PASSWORD_LENGTH} caracteres)
                <input
                  type="password"
                  name="password"
                  autocomplete="new-password"
                  required
                  minlength="${MIN_PASSWORD_LENGTH}"
              /></label>
              <label
                >Repita a senha
                <input type="password" name="password_confirmation" autocomplete="new-password" required
              /></label>
              <button type="submit">Criar acesso</button>
            </form>`,
        }).value,
      );
    });

    router.post("/convite/:token", async (req, res) => {
      const parsed = inviteForm.safeParse(req.body);
      if (!parsed.success) throw new PanelHttpError(400, "Preencha nome e senha.");
      if (parsed.data.password !== parsed.data.password_confirmation)
        throw new PanelHttpError(400, "As senhas não conferem.");
      const user = await acceptPanelInvite(
        { db: deps.db },
        { token: req.params.token, name: parsed.data.name, password: parsed.data.password, requestId: req.requestId },
      );
      await startSession(deps, res, user.id);
      res.redirect(303, "/");
    });
  },
};

const confirmForm = z.object({ password: z.string().max(1024), next: z.string().max(2048).optional() });

function confirmPage(req: Request, options: { next: string; error?: string }): string {
  return page(req, {
    title: "Confirme sua senha",
    notice: {
      kind: options.error ? "error" : "ok",
      text: options.error ?? "Por segurança, confirme sua senha para continuar.",
    },
    body: html`<p class="hint">
        Gerenciar usuários, criar ou revogar chaves de API e revelar segredos pedem a senha de novo quando você passa um
        tempo sem confirmá-la. Depois de confirmar, você volta à página em que estava e pode repetir a ação.
      </p>
      <form method="post" action="${CONFIRM_PASSWORD_PATH}" class="stack">
        ${csrfField(req)}
        <input type="hidden" name="next" value="${options.next}" />
        <label>Senha <input type="password" name="password" autocomplete="current-password" required /></label>
        <button type="submit">Confirmar senha</button>
      </form>`,
  }).value;
}

/**
 * The password asked again before a sensitive action (http/reauth.ts sends here), behind sign-in. Each check takes
 * a point of the same throttle as sign-in (the user's email and the client address) before scrypt runs, so a stolen
 * session cannot guess the password faster than a sign-in could.
 */
export const confirmPasswordPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get(CONFIRM_PASSWORD_PATH, (req, res) => {
      const next = safeNext(typeof req.query.next === "string" ? req.query.next : undefined);
      res.type("html").send(confirmPage(req, { next }));
    });

    router.post(CONFIRM_PASSWORD_PATH, async (req, res) => {
      const user = currentUser(req);
      const parsed = confirmForm.safeParse(req.body);
      if (!parsed.success) throw new PanelHttpError(400, "Informe sua senha.");
      const next = safeNext(parsed.data.next);
      const admission = await deps.throttle.admit(user.email, req.ip ?? "unknown");
      if (!admission.admitted)
        return sendThrottled(res, admission.retryAfterSeconds, (wait) =>
          confirmPage(req, { next, error: `Muitas tentativas com senha errada. ${wait}` }),
        );
      const confirmed = await confirmPanelPassword(
        { db: deps.db, logger: deps.logger },
        { userId: user.userId, password: parsed.data.password },
      );
      if (!confirmed) {
        res
          .status(401)
          .type("html")
          .send(confirmPage(req, { next, error: "Senha incorreta." }));
        return;
      }
      await admission.attempt.succeeded();
      await markPanelSessionReauthenticated({ db: deps.db }, { sessionId: user.sessionId });
      res.redirect(303, next);
    });
  },
};
