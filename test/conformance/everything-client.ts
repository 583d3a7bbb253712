/**
 * The client the MCP conformance suite's client scenarios run: `connectMcp` over Streamable HTTP,
 * built only from the package's public API (`agenttool` and `agenttool/mcp/client`). The suite
 * appends the server's URL to the command line and names the scenario in
 * `MCP_CONFORMANCE_SCENARIO`. It opens the session, lists the tools and calls each one it knows
 * the arguments for, answering any question it asks by accepting the form as it stands, then
 * closes; the exit status is 1 when a call failed.
 */
import {
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { lastValueFrom, toArray } from 'rxjs';
import {
  connectMcp,
  headlessOAuthProvider,
  httpTransport,
  oauth,
  workloadIdentityProvider,
} from '../../adapters/mcp-client/index.js';
import { CallContext, type Elicitor } from '../../index.js';

const ARGUMENTS: Record<string, object> = {
  add_numbers: { a: 5, b: 3 },
  test_reconnection: {},
  test_client_elicitation_defaults: {},
  // MCP 2026-07-28: tools that answer input_required (their questions accepted as they stand).
  test_mrtr_echo_state: {},
  test_mrtr_no_state: {},
  test_mrtr_unrelated: {},
  test_mrtr_no_result_type: {},
};

/** The calls a scenario asks for by name (`MCP_CONFORMANCE_CONTEXT`'s `toolCalls`), if any. */
const asked = new Map<string, object>();
const context = process.env.MCP_CONFORMANCE_CONTEXT;
if (context !== undefined) {
  const { toolCalls = [] } = JSON.parse(context) as {
    toolCalls?: { name: string; arguments: object }[];
  };
  for (const { name, arguments: args } of toolCalls) asked.set(name, args);
}

/**
 * Arguments for any tool, made from its schema's required properties: what the scenario that
 * lists tools with broken `x-mcp-header` declarations needs, since it checks which tools are
 * called (every tool `connectMcp` keeps is).
 */
function sampleArguments(schema: { properties?: object; required?: string[] }): object {
  const samples: Record<string, unknown> = {
    string: 'us-west1', integer: 1, number: 1.5, boolean: true, object: {}, array: [], null: null,
  }; // prettier-ignore
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  return Object.fromEntries(
    (schema.required ?? []).map((key) => [key, samples[properties[key]?.type ?? 'string']]),
  );
}
const callsEveryTool = process.env.MCP_CONFORMANCE_SCENARIO === 'http-invalid-tool-headers';
/**
 * The scenario that checks a listed schema is kept as listed: the schema `connectMcp` holds for
 * its focal tool (every other tool of the list), sent back verbatim to its echo tool.
 */
const echoesSchema = process.env.MCP_CONFORMANCE_SCENARIO === 'json-schema-2020-12-preservation';

/** The person: accepts every question as the form stands, so each field keeps its default. */
const acceptAsIs: Elicitor = () => ({ action: 'accept', content: {} });

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
// The authorization scenarios: the suite's own authorization server grants at once, so the
// headless provider takes the code from its redirect. A URL-based client id where offered.
const authorizes = scenario.startsWith('auth/');
/** A client registered beforehand, when the scenario gives one. */
const given = (context === undefined ? {} : JSON.parse(context)) as {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** Workload identity federation: the workload's JWT. */
  valid_jwt?: string;
  /** Cross-app access: the enterprise IdP, the person's id token there, and its client. */
  idp_id_token?: string;
  idp_token_endpoint?: string;
  idp_client_id?: string;
};
/**
 * A machine's own grant (client_credentials), with the SDK's providers as `auth`: a secret, or a
 * key that signs a JWT (private_key_jwt).
 */
const machine: OAuthClientProvider | undefined =
  given.valid_jwt !== undefined
    ? workloadIdentityProvider({ clientId: given.client_id!, assertion: given.valid_jwt })
    : given.idp_id_token !== undefined
      ? // Cross-app access (SEP-990): the id token exchanged at the IdP for an ID-JAG (RFC 8693),
        // then the ID-JAG for an access token (RFC 7523), through the SDK's provider.
        new CrossAppAccessProvider({
          clientId: given.client_id!,
          clientSecret: given.client_secret!,
          assertion: async (ctx) =>
            (
              await requestJwtAuthorizationGrant({
                tokenEndpoint: given.idp_token_endpoint!,
                audience: ctx.authorizationServerUrl,
                resource: ctx.resourceUrl,
                idToken: given.idp_id_token!,
                clientId: given.idp_client_id!,
                ...(ctx.scope === undefined ? {} : { scope: ctx.scope }),
                fetchFn: ctx.fetchFn,
              })
            ).jwtAuthGrant,
        })
      : scenario.startsWith('auth/client-credentials-')
        ? given.private_key_pem !== undefined
          ? new PrivateKeyJwtProvider({
              clientId: given.client_id!,
              privateKey: given.private_key_pem,
              algorithm: given.signing_algorithm ?? 'ES256',
            })
          : new ClientCredentialsProvider({
              clientId: given.client_id!,
              clientSecret: given.client_secret!,
            })
        : undefined;
const registered =
  given.client_id === undefined
    ? undefined
    : {
        client_id: given.client_id,
        ...(given.client_secret === undefined ? {} : { client_secret: given.client_secret }),
      };
const remote = await connectMcp(
  httpTransport(
    url,
    machine !== undefined
      ? { auth: machine }
      : authorizes
        ? {
            auth: oauth(
              headlessOAuthProvider({
                redirectUrl: 'http://localhost:3000/callback',
                clientMetadata: {
                  client_name: 'agenttool-conformance',
                  redirect_uris: ['http://localhost:3000/callback'],
                },
                clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
                ...(registered === undefined ? {} : { clientInformation: registered }),
              }),
            ),
          }
        : {},
  ),
);
if (authorizes) ARGUMENTS['test-tool'] = {};
if (echoesSchema) {
  const focal = remote.tools.find((tool) => tool.name !== 'json_schema_echo');
  if (focal !== undefined) ARGUMENTS.json_schema_echo = { schema: focal.parameters };
}
let status = 0;
for (const tool of remote.tools) {
  const args =
    asked.get(tool.name) ??
    ARGUMENTS[tool.name] ??
    (callsEveryTool ? sampleArguments(tool.parameters as object) : undefined);
  if (args === undefined) continue;
  const call = { id: tool.name, args: JSON.stringify(args) };
  try {
    const events = await lastValueFrom(
      tool.execute(call, new CallContext(call, { elicitor: acceptAsIs })).pipe(toArray()),
    );
    process.stdout.write(`${tool.name}: ${JSON.stringify(events.at(-1)?.result.output)}\n`);
  } catch (err) {
    process.stderr.write(`${tool.name}: ${(err as Error).message}\n`);
    status = 1;
  }
}
await remote.close();
process.exit(status);
