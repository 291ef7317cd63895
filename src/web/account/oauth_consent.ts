/**
 * The person's side of OAuth sign-in, in the account area (where the session cookie is sent):
 * the consent page of /account/authorize (sign in first with the e-mailed link, which comes
 * back here), its Approve and Deny form (CSRF-protected) with the `watches` box the person must
 * tick to grant that scope, and "Connected apps" on the dashboard, saying what each app may do,
 * with a Revoke button per grant.
 */
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  redirectWith,
} from "../../oauth/authorize.ts";
import type { DocumentPolicy } from "../../oauth/documents.ts";
import { displayClientName } from "../../oauth/clients.ts";
import { approveGrant, type GrantInfo, listGrants, revokeGrant } from "../../oauth/flow.ts";
import { describeScope, parseScope, type Scope } from "../../accounts/scopes.ts";
import {
  type AccountDeps,
  type AccountResponse,
  anonymousSecret,
  csrfField,
  csrfRefused,
  message,
  readForm,
  redirect,
  respond,
  type Visit,
} from "./common.ts";
import type { SignedIn } from "./signin.ts";
import { formatDate, html, page, type SafeHtml } from "../html.ts";
import { checkCsrf } from "../security.ts";

/** Where the consent page's form may be redirected: the client's redirect URI's origin. */
function consentFormAction(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

/**
 * An app's name in a page: stripped of what registration refuses (names stored before the rule)
 * and isolated, so that it cannot reorder the words around it.
 */
function appName(name: string): SafeHtml {
  return html`<bdi>${displayClientName(name)}</bdi>`;
}

/**
 * Where a redirect URI takes the person, in words they can check: the host of a web address, or
 * the scheme of a native app (`com.example.app`), whose "host" is only part of its path.
 */
function returnTarget(uri: string): { name: string; app: boolean } {
  const url = new URL(uri);
  const web = url.protocol === "http:" || url.protocol === "https:";
  return web ? { name: url.host, app: false } : { name: url.protocol.slice(0, -1), app: true };
}

/** The consent page and the Connected apps actions. */
export function createConsent(
  deps: AccountDeps & { documents?: DocumentPolicy },
  session: (visit: Visit) => Promise<SignedIn | undefined>,
) {
  const { sql } = deps;
  const publicBaseUrl = deps.context.publicBaseUrl;

  async function check(params: URLSearchParams) {
    return await checkAuthorizationRequest(sql, params, {
      publicBaseUrl,
      documents: deps.documents,
    });
  }

  function refused(status: number, text: string): AccountResponse {
    return message(
      status,
      "This sign-in request cannot go on",
      html`
        <p>${text}.</p>
        <p>Go back to the app and connect again.</p>
      `,
    );
  }

  async function signInFirst(visit: Visit, request: AuthorizationRequest) {
    const csrf = await csrfField(anonymousSecret(visit));
    const next = `/account/authorize?${request.params}`;
    const name = appName(request.client.clientName);
    const body = html`
      <h1>Sign in to connect ${name}</h1>
      <p><strong>${name}</strong> wants to use Opportunity Intelligence for you.
      Sign in first: we e-mail you a link; open it in this browser and you come back here to decide.</p>
      <section class="card" aria-labelledby="signin-title">
        <h2 id="signin-title">E-mail me a sign-in link</h2>
        <form method="post" action="/account/signup">
      ${csrf}
      <input type="hidden" name="next" value="${next}">
      <label for="signin-email">E-mail address</label>
      <input id="signin-email" type="email" name="email" required maxlength="254" autocomplete="email">
      <button type="submit">E-mail me a sign-in link</button>
        </form>
        <p class="muted">No account yet? The same link creates one on the Free plan.</p>
      </section>
    `;
    return respond(200, page({ title: "Sign in · Opportunity Intelligence", body }));
  }

  async function consentForm(current: SignedIn, request: AuthorizationRequest) {
    const csrf = await csrfField(current.secret);
    const { client } = request;
    const hidden = [...request.params].map(([name, value]) =>
      html`<input type="hidden" name="${name}" value="${value}">`
    );
    const documentHost = client.kind === "document"
      ? returnTarget(client.clientId).name
      : undefined;
    const target = returnTarget(request.redirectUri);
    const backTo = html`<strong id="redirect-host">${target.name}</strong>${
      target.app ? " (an app on this device)" : ""
    }`;
    const asksWatches = request.scopes.includes("watches");
    const name = appName(client.clientName);
    const body = html`
      <h1>Connect ${name}?</h1>
      <section class="card" aria-labelledby="consent-title">
        <h2 id="consent-title">${name} asks to use your account</h2>
        <p>Signed in as <strong>${current.account.email}</strong>.</p>
        <form method="post" action="/account/authorize">
        ${csrf} ${hidden}
        <p id="consent-catalog">If you approve, <strong>${name}</strong> may <strong>read the catalogue and your usage</strong>
        (opportunities, themes, categories, articles, and the calls you have made). The calls it
        makes count against your plan's monthly quota, as your API keys' calls do.</p>
        ${asksWatches
          ? html`
            <fieldset id="consent-watches">
              <legend>It also asks to manage your watches</legend>
              <label><input type="checkbox" name="grant_watches" value="yes"> Also let it list,
              create, change and delete your watches, and get their private feed address and
              webhook signing secret</label>
            </fieldset>
          `
          : ""}
        <p>It cannot see or change your API keys or e-mail settings${asksWatches
          ? html`, nor your watches unless you tick the box above`
          : ", nor your watches"}.</p>
        <p>After you decide, you go back to ${backTo}${documentHost
          ? html`
            (this app is described by its own document at <strong>${documentHost}</strong>)
          `
          : ""}.</p>
        <p class="muted">You can disconnect it at any time under "Connected apps" in your account.</p>
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
        </form>
      </section>
    `;
    const response = respond(
      200,
      page({ title: "Connect an app · Opportunity Intelligence", body }),
    );
    return { ...response, formAction: consentFormAction(request.redirectUri) };
  }

  /** GET /account/authorize: sign in first, then the consent form. */
  async function consentPage(visit: Visit): Promise<AccountResponse> {
    const checked = await check(visit.url.searchParams);
    if (checked.kind === "show") return refused(checked.status, checked.message);
    if (checked.kind === "redirect") return redirect(checked.location);
    const current = await session(visit);
    if (!current) return await signInFirst(visit, checked.request);
    return await consentForm(current, checked.request);
  }

  /** POST /account/authorize: the decision, from a signed-in session with its CSRF token. */
  async function decide(visit: Visit): Promise<AccountResponse> {
    const current = await session(visit);
    const form = await readForm(visit.request);
    if (!current || !form || !(await checkCsrf(current.secret, form.get("csrf") ?? undefined))) {
      return csrfRefused();
    }
    const checked = await check(form);
    if (checked.kind === "show") return refused(checked.status, checked.message);
    if (checked.kind === "redirect") return redirect(checked.location);
    const { request } = checked;
    const decision = form.get("decision");
    if (decision === "deny") {
      return redirect(redirectWith(request.redirectUri, {
        error: "access_denied",
        error_description: "The user denied the request",
        state: request.state,
      }, publicBaseUrl));
    }
    if (decision !== "approve") return refused(400, "Choose Approve or Deny");
    // Only what the app asked for AND the person ticked: a ticked box of a request that did not
    // ask for watches grants nothing more.
    const scopes: Scope[] =
      request.scopes.includes("watches") && form.get("grant_watches") === "yes"
        ? ["catalog", "watches"]
        : ["catalog"];
    const code = await approveGrant(sql, {
      accountId: current.account.id,
      clientId: request.client.clientId,
      clientName: displayClientName(request.client.clientName),
      redirectUri: request.redirectUri,
      resource: request.resource,
      codeChallenge: request.codeChallenge,
      scopes,
    });
    return redirect(
      redirectWith(request.redirectUri, { code, state: request.state }, publicBaseUrl),
    );
  }

  /** POST /account/apps/revoke: the owner revokes one of their grants. */
  async function revokeApp(visit: Visit): Promise<AccountResponse> {
    const current = await session(visit);
    if (!current) return redirect("/account");
    const form = await readForm(visit.request);
    if (!form || !(await checkCsrf(current.secret, form.get("csrf") ?? undefined))) {
      return csrfRefused();
    }
    const id = Number(form.get("id"));
    const done = await revokeGrant(sql, { id, accountId: current.account.id, by: "owner" });
    return redirect(done ? "/account?done=app-revoked#apps-title" : "/account#apps-title");
  }

  return { consentPage, decide, revokeApp };
}

/** "Connected apps": the live grants of the account with a Revoke button each. */
export async function connectedAppsSection(
  deps: { sql: AccountDeps["sql"] },
  accountId: number,
  csrf: SafeHtml,
): Promise<SafeHtml> {
  const grants = await listGrants(deps.sql, { accountId, live: true });
  return html`
    <section class="card" aria-labelledby="apps-title">
      <h2 id="apps-title">Connected apps</h2>
      ${grants.length === 0
        ? html`<p>No app is connected. AI clients (Claude, ChatGPT, VS Code, ...) that you connect
  with "Sign in" appear here.</p>`
        : appTable(grants, csrf)}
    </section>
  `;
}

function appTable(grants: GrantInfo[], csrf: SafeHtml): SafeHtml {
  const rows = grants.map((g) =>
    html`
      <tr>
        <td>${appName(g.client_name)}</td>
        <td>${describeScope(parseScope(g.scope))}</td>
        <td>${returnTarget(g.redirect_uri).name}</td>
        <td>${formatDate(g.created_at.toISOString())}</td>
        <td>${formatDate(g.last_used_at ? g.last_used_at.toISOString() : null)}</td>
        <td>
          <form method="post" action="/account/apps/revoke" class="inline">${csrf}
      <input type="hidden" name="id" value="${g.id}">
      <button type="submit" class="secondary" aria-label="Revoke ${displayClientName(
        g.client_name,
      )}">Revoke</button></form>
        </td>
      </tr>
    `
  );
  return html`
    <table id="apps">
      <thead>
        <tr>
          <th scope="col">App</th>
          <th scope="col">May</th>
          <th scope="col">Redirects to</th>
          <th scope="col">Connected</th>
          <th scope="col">Last used</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}
