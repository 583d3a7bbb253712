/**
 * OAuth for `connectMcp` over Streamable HTTP, as MCP's authorization spec describes it, through
 * the SDK's client support (`auth()`: protected-resource and authorization-server discovery,
 * dynamic or pre-registered or URL-based client ids, PKCE, token refresh).
 *
 * @module
 */
import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  isStrictScopeSuperset,
  UnauthorizedError,
  type AuthProvider,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';

/**
 * An OAuth client provider (the SDK's `OAuthClientProvider`: client metadata, stored client
 * information and tokens, PKCE verifier) that can also wait for the authorization code of the
 * redirect it started: `redirectToAuthorization(url)` sends the person (or, headless, the request)
 * to the authorization server, and `authorizationResponse()` resolves with the `code` (and `iss`,
 * checked as RFC 9207 asks) the redirect URI receives. See {@link headlessOAuthProvider} for one
 * that needs no person.
 */
export interface McpOAuthProvider extends OAuthClientProvider {
  /** What the redirect after `redirectToAuthorization` brought back. */
  authorizationResponse(): Promise<AuthorizationResponse>;
}

/** What an authorization server's redirect brings back to the redirect URI. */
export interface AuthorizationResponse {
  /** The authorization code, exchanged for tokens. */
  code: string;
  /** The authorization server that issued it (RFC 9207), when it says so. */
  iss?: string;
}

/** The providers `oauth()` made: a 403 `insufficient_scope` goes to them as a 401 (see below). */
const steppingUp = new WeakSet<object>();

/** Whether `auth` re-authorizes on a 403 `insufficient_scope` as on a 401 (see {@link oauth}). */
export function stepsUp(auth: unknown): boolean {
  return typeof auth === 'object' && auth !== null && steppingUp.has(auth);
}

/**
 * `provider` as the transport's `AuthProvider` (`httpTransport(url, { auth })`): every
 * request carries its access token; a 401, or a 403 `insufficient_scope` (a step-up), runs the
 * authorization flow, with the scope the server's `WWW-Authenticate` asks for added to what was
 * granted before, waits for the code when the flow needs a redirect, and the request is sent
 * again once.
 */
export function oauth(provider: McpOAuthProvider): AuthProvider {
  const made: AuthProvider = {
    token: async () => (await provider.tokens())?.access_token,
    onUnauthorized: async ({ response, serverUrl, fetchFn }) => {
      const { resourceMetadataUrl, scope: challenged } = extractWWWAuthenticateParams(response);
      const prior = (await provider.tokens())?.scope;
      const scope = computeScopeUnion(prior, challenged);
      const options = {
        serverUrl,
        fetchFn,
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        ...(scope === undefined ? {} : { scope }),
        // More scope than the tokens have (a step-up): a new grant, not a refresh.
        ...(isStrictScopeSuperset(scope, prior) ? { forceReauthorization: true } : {}),
      };
      let result = await auth(provider, options);
      if (result === 'REDIRECT') {
        const { code, iss } = await provider.authorizationResponse();
        result = await auth(provider, {
          ...options,
          authorizationCode: code,
          ...(iss === undefined ? {} : { iss }),
        });
      }
      if (result !== 'AUTHORIZED')
        throw new UnauthorizedError(`authorization did not complete (${result})`);
    },
  };
  steppingUp.add(made);
  return made;
}

/** A client registered with the authorization server beforehand. */
export interface RegisteredClient {
  /** Its client id. */
  client_id: string;
  /** Its secret, for a confidential client. */
  client_secret?: string;
}

/** Options of {@link headlessOAuthProvider}. */
export interface HeadlessOAuthOptions {
  /** Where the authorization server redirects with the code (registered with it). */
  redirectUrl: string;
  /** What the client registers (dynamic registration) or publishes (`clientMetadataUrl`). */
  clientMetadata: OAuthClientProvider['clientMetadata'];
  /** An https URL of this client's metadata document, used as its client id where supported. */
  clientMetadataUrl?: string;
  /** A client registered beforehand: its id (and secret, for a confidential client). */
  clientInformation?: RegisteredClient;
}

/**
 * An {@link McpOAuthProvider} that needs no person: for tests and services whose authorization
 * server grants at once (it answers the authorization URL with a redirect carrying the code, as
 * a test server does). It requests the authorization URL itself without following the redirect,
 * and takes the code from its `Location`. Client information and tokens are kept in memory, for
 * the process's life; a new registration or grant replaces them.
 */
export function headlessOAuthProvider(options: HeadlessOAuthOptions): McpOAuthProvider {
  type Info = Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  type Tokens = Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  let information: Info = options.clientInformation as Info;
  let tokens: Tokens;
  let verifier: string | undefined;
  let response: Promise<AuthorizationResponse> | undefined;
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return options.clientMetadata;
    },
    ...(options.clientMetadataUrl === undefined
      ? {}
      : { clientMetadataUrl: options.clientMetadataUrl }),
    clientInformation: () => information,
    saveClientInformation: (saved) => void (information = saved as Info),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    saveCodeVerifier: (saved) => void (verifier = saved),
    codeVerifier: () => {
      if (verifier === undefined) throw new Error('oauth: no PKCE code verifier was saved');
      return verifier;
    },
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') tokens = undefined;
      if (scope === 'all' || scope === 'client') information = undefined;
      if (scope === 'all' || scope === 'verifier') verifier = undefined;
    },
    redirectToAuthorization: async (url) => {
      response = (async () => {
        const answer = await fetch(url, { redirect: 'manual' });
        await answer.body?.cancel().catch(() => undefined);
        const location = answer.headers.get('location');
        const query = location === null ? undefined : new URL(location, url).searchParams;
        const code = query?.get('code');
        if (code === undefined || code === null)
          throw new Error(
            `oauth: the authorization server answered ${answer.status} without a redirect carrying a code`,
          );
        const iss = query!.get('iss');
        return iss === null ? { code } : { code, iss };
      })();
      await response;
    },
    authorizationResponse: () =>
      response ?? Promise.reject(new Error('oauth: no authorization was started')),
  };
}

/** Options of {@link workloadIdentityProvider}. */
export interface WorkloadIdentityOptions {
  /** The client id the authorization server knows the workload by. */
  clientId: string;
  /**
   * The workload's own JWT (a Kubernetes service account token, a cloud's workload identity
   * token), or a function that fetches a fresh one each time a token is requested.
   */
  assertion: string | (() => string | Promise<string>);
  /** The scope to request, if any. */
  scope?: string;
}

/**
 * An OAuth client provider (the SDK's `OAuthClientProvider`, for `httpTransport(url, { auth })`)
 * for a workload with no person and no secret: it exchanges the workload's own JWT for an access
 * token with the JWT-bearer grant (RFC 7523, `urn:ietf:params:oauth:grant-type:jwt-bearer`, the
 * JWT as `assertion`; MCP's workload identity federation), authenticating as a public client. A
 * refusal (`invalid_grant`, `invalid_scope`, `unauthorized_client`) fails the connection with the
 * server's error; no other grant is tried. Tokens are kept in memory, for the process's life.
 */
export function workloadIdentityProvider(options: WorkloadIdentityOptions): OAuthClientProvider {
  type Tokens = Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  let tokens: Tokens;
  const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
  return {
    get redirectUrl() {
      return undefined;
    },
    get clientMetadata() {
      return {
        client_name: 'workload',
        redirect_uris: [],
        grant_types: [jwtBearer],
        token_endpoint_auth_method: 'none',
        ...(options.scope === undefined ? {} : { scope: options.scope }),
      };
    },
    clientInformation: () => ({ client_id: options.clientId }),
    tokens: () => tokens,
    saveTokens: (saved) => void (tokens = saved),
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') tokens = undefined;
    },
    redirectToAuthorization: () => {
      throw new Error('oauth: a workload identity grant sends nobody to authorize');
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => {
      throw new Error('oauth: a workload identity grant has no PKCE code verifier');
    },
    prepareTokenRequest: async (scope) => {
      const assertion =
        typeof options.assertion === 'string' ? options.assertion : await options.assertion();
      const params = new URLSearchParams({ grant_type: jwtBearer, assertion });
      if (scope) params.set('scope', scope);
      return params;
    },
  };
}
