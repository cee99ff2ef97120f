import type { Request, Response, Router } from "express";
import {
  MIN_PASSWORD_LENGTH,
  acceptPanelInvite,
  authenticatePanelUser,
  createPanelSession,
  deletePanelSession,
  findPanelInvite,
} from "@gw/core";
import { z } from "@gw/config";
import type { PanelDeps } from "../container.ts";
import { PanelHttpError } from "../http/errors.ts";
import { clearSessionCookie, csrfToken, sessionToken, setSessionCookie, type SessionOptions } from "../http/session.ts";
import { noticeFrom } from "../views/components.ts";
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

async function startSession(deps: PanelDeps, res: Response, userId: string): Promise<void> {
  const { token } = await createPanelSession({ db: deps.db }, { userId, ttlMs: deps.session.ttlMs });
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
      const ip = req.ip ?? "unknown";
      const wait = await deps.throttle.retryAfterSeconds(normalized, ip);
      if (wait > 0) {
        res.setHeader("Retry-After", String(wait));
        const minutes = Math.max(1, Math.ceil(wait / 60));
        res
          .status(429)
          .type("html")
          .send(
            form(req, res, {
              email,
              ...(next === undefined ? {} : { next }),
              error: `Muitas tentativas de entrada. Tente de novo em ${minutes} minuto${minutes > 1 ? "s" : ""}.`,
            }),
          );
        return;
      }
      const user = await authenticatePanelUser(
        { db: deps.db },
        { email: normalized, password, requestId: req.requestId },
      );
      if (!user) {
        await deps.throttle.recordFailure(normalized, ip);
        res
          .status(401)
          .type("html")
          .send(
            form(req, res, { email, ...(next === undefined ? {} : { next }), error: "E-mail ou senha incorretos." }),
          );
        return;
      }
      await deps.throttle.recordSuccess(normalized);
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
