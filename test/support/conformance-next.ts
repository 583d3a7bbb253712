/**
 * The conformance suite's next line (`@modelcontextprotocol/conformance` 0.2.0-alpha.12, installed
 * as `conformance-next`): every scenario it lists, in one of the tables below, each with its reason
 * when it is not expected to pass, and the client run test/mcp-conformance-next*.test.ts share.
 */
import { all, conformanceClient, conformanceOf, type Run } from './conformance.js';

export const conformance = conformanceOf('conformance-next');

export type Verdict = 'pass' | { readonly notYet: string } | { readonly outOfScope: string };

const SAMPLING = 'agenttool tools ask people (elicitation), never a model (sampling) or roots';
const PROMPTS = 'agenttool serves tools: no prompts, resources or completion';

/** Every server scenario of the suite, and what agenttool's server does with it. */
export const SERVER: Record<string, Verdict> = {
  'server-initialize': 'pass',
  'server-session-lifecycle': 'pass',
  'server-stateless': 'pass',
  'logging-set-level': {
    outOfScope: 'agenttool sends no log messages (logging is gone in 2026-07-28)',
  },
  ping: 'pass',
  'completion-complete': { outOfScope: PROMPTS },
  'tools-list': 'pass',
  'tools-call-simple-text': 'pass',
  'tools-call-image': 'pass',
  'tools-call-audio': 'pass',
  'tools-call-embedded-resource': 'pass',
  'tools-call-mixed-content': 'pass',
  'tools-call-with-logging': { outOfScope: 'agenttool sends no log messages' },
  'tools-call-error': 'pass',
  'tools-call-with-progress': 'pass',
  'tools-call-sampling': { outOfScope: SAMPLING },
  'tools-call-elicitation': 'pass',
  'json-schema-2020-12': 'pass',
  'elicitation-sep1034-defaults': 'pass',
  'server-sse-polling': 'pass',
  'server-sse-multiple-streams': 'pass',
  'elicitation-sep1330-enums': 'pass',
  'resources-list': { outOfScope: PROMPTS },
  'resources-read-text': { outOfScope: PROMPTS },
  'resources-read-binary': { outOfScope: PROMPTS },
  'resources-templates-read': { outOfScope: PROMPTS },
  'resources-subscribe': { outOfScope: PROMPTS },
  'resources-unsubscribe': { outOfScope: PROMPTS },
  'sep-2164-resource-not-found': { outOfScope: PROMPTS },
  'sep-2640-skills-directory': { outOfScope: 'the skills extension is not served' },
  'sep-2640-skills-enumeration': { outOfScope: 'the skills extension is not served' },
  'sep-2640-skills-manifest': { outOfScope: 'the skills extension is not served' },
  'prompts-list': { outOfScope: PROMPTS },
  'prompts-get-simple': { outOfScope: PROMPTS },
  'prompts-get-with-args': { outOfScope: PROMPTS },
  'prompts-get-embedded-resource': { outOfScope: PROMPTS },
  'prompts-get-with-image': { outOfScope: PROMPTS },
  'dns-rebinding-protection': 'pass',
  caching: {
    outOfScope: `${PROMPTS}; tools/list carries ttlMs and cacheScope (test/mcp/mcp-modern.test.ts)`,
  },
  'http-header-validation': 'pass',
  'http-custom-header-server-validation': 'pass',
  'tasks-lifecycle': 'pass',
  'tasks-capability-negotiation': 'pass',
  'tasks-wire-fields': 'pass',
  'tasks-request-state-removal': 'pass',
  'tasks-mrtr-input': 'pass',
  'tasks-request-headers': 'pass',
  'tasks-dispatch-and-envelope': 'pass',
  'tasks-status-notifications': 'pass',
  'tasks-required-task-error': 'pass',
  'tasks-mrtr-composition': 'pass',
  'input-required-result-basic-elicitation': 'pass',
  'input-required-result-basic-sampling': { outOfScope: SAMPLING },
  'input-required-result-basic-list-roots': { outOfScope: SAMPLING },
  'input-required-result-request-state': 'pass',
  'input-required-result-multiple-input-requests': { outOfScope: SAMPLING },
  'input-required-result-multi-round': 'pass',
  'input-required-result-missing-input-response': 'pass',
  'input-required-result-non-tool-request': { outOfScope: PROMPTS },
  'input-required-result-result-type': 'pass',
  'input-required-result-unsupported-methods': 'pass',
  'input-required-result-tampered-state': 'pass',
  'input-required-result-capability-check': {
    outOfScope: `it expects sampling requests of a client without elicitation: ${SAMPLING}`,
  },
  'input-required-result-ignore-extra-params': 'pass',
  'input-required-result-validate-input': 'pass',
};

/** Every client scenario of the suite, and what `connectMcp` does with it. */
export const CLIENT: Record<string, Verdict> = {
  initialize: 'pass',
  tools_call: 'pass',
  'elicitation-sep1034-client-defaults': 'pass',
  'sse-retry': 'pass',
  'request-metadata': 'pass',
  'sep-2322-client-request-state': 'pass',
  'http-standard-headers': 'pass',
  'http-custom-headers': 'pass',
  'http-invalid-tool-headers': 'pass',
  'json-schema-ref-no-deref': 'pass',
  'json-schema-2020-12-preservation': 'pass',
  // Authorization (OAuth through httpTransport's `auth`, the headless provider of
  // test/conformance/everything-client.ts).
  'auth/2025-03-26-oauth-endpoint-fallback': 'pass',
  'auth/2025-03-26-oauth-metadata-backcompat': 'pass',
  'auth/authorization-server-migration': 'pass',
  'auth/basic-cimd': 'pass',
  'auth/iss-normalized': 'pass',
  'auth/iss-not-advertised': 'pass',
  'auth/iss-supported': 'pass',
  'auth/iss-supported-missing': 'pass',
  'auth/iss-unexpected': 'pass',
  'auth/iss-wrong-issuer': 'pass',
  'auth/metadata-default': 'pass',
  'auth/metadata-issuer-mismatch': 'pass',
  'auth/metadata-var1': 'pass',
  'auth/metadata-var2': 'pass',
  'auth/metadata-var3': 'pass',
  'auth/offline-access-not-supported': 'pass',
  'auth/offline-access-scope': 'pass',
  'auth/pre-registration': 'pass',
  'auth/resource-mismatch': 'pass',
  'auth/scope-from-scopes-supported': 'pass',
  'auth/scope-from-www-authenticate': 'pass',
  'auth/scope-omitted-when-undefined': 'pass',
  'auth/scope-retry-limit': 'pass',
  'auth/token-endpoint-auth-basic': 'pass',
  'auth/token-endpoint-auth-none': 'pass',
  'auth/token-endpoint-auth-post': 'pass',
  'auth/scope-step-up': 'pass',
  'auth/client-credentials-basic': 'pass',
  'auth/client-credentials-jwt': 'pass',
  'auth/wif-jwt-bearer': 'pass',
  'auth/dpop': { outOfScope: 'DPoP is an extension agenttool does not implement' },
  'auth/dpop-nonce': { outOfScope: 'DPoP is an extension agenttool does not implement' },
  'auth/enterprise-managed-authorization': 'pass',
};

const EXTENSION = 'an extension agenttool does not implement';

/** The client scenarios left out whole: extensions. */
export function clientOutOfScope(name: string): string | undefined {
  if (name.startsWith('sep-2640-')) return EXTENSION;
  return undefined;
}

/** The scenario names the suite lists (`list --server` or `list --client`). */
export function listed(node: string, side: 'server' | 'client', cwd: string): Promise<string[]> {
  return conformance(node, ['list', `--${side}`], cwd).then((run) =>
    [...run.output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!),
  );
}

export function passed(run: Run): boolean {
  return run.status === 0 && /\b0 failed\b/.test(run.output);
}

/** What the tables get wrong: a scenario listed not yet passing that passes. */
export function passingNotYet(table: Record<string, Verdict>, results: Map<string, Run>): string[] {
  return [...results]
    .filter(([name, run]) => typeof table[name] === 'object' && passed(run))
    .map(([name]) => `${name} passes: list it as 'pass'`);
}

/**
 * Runs the client scenarios `which` picks from the table against `connectMcp`
 * (test/conformance/everything-client.ts); resolves with each one's run.
 */
export function runClientScenarios(
  node: string,
  cwd: string,
  which: (name: string) => boolean,
): Promise<Map<string, Run>> {
  const run = async (scenario: string): Promise<Run> =>
    conformance(
      node,
      ['client', '--command', await conformanceClient(), '--scenario', scenario],
      cwd,
    );
  const scenarios = Object.entries(CLIENT)
    .filter(([, verdict]) => verdict === 'pass' || 'notYet' in verdict)
    .map(([name]) => name)
    .filter(which);
  return all(
    scenarios,
    async (scenario) => {
      const first = await run(scenario);
      // sse-retry times the reconnection on the wall clock (see test/mcp/mcp-conformance.test.ts).
      return /reconnected very late/.test(first.output) ? run(scenario) : first;
    },
    2,
  );
}
