/**
 * A served call's log messages (`notifications/message`), as `createMcpServer` sends them on from
 * a remote tool's server: at the level the client asked for, and marked with the call they belong
 * to, since MCP does not say which request a log message belongs to.
 *
 * @module
 */
import {
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type LoggingMessageNotification,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CALL_TOKEN } from '../mcp-shared/call-token.js';

/** The levels from least to most severe (RFC 5424, as MCP lists them). */
const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** `value` when it names a level, else undefined. */
function levelOf(value: unknown): LoggingLevel | undefined {
  return SEVERITY.includes(value as LoggingLevel) ? (value as LoggingLevel) : undefined;
}

/** The level each session asked for with `logging/setLevel` (2025 era), per server. */
const askedLevels = new WeakMap<Server, Map<string | undefined, LoggingLevel>>();

/**
 * Answers `logging/setLevel` on `server` (which declares `logging`): the level is kept per
 * session for {@link sendCallLog}.
 */
export function answerSetLevel(server: Server): void {
  const levels = new Map<string | undefined, LoggingLevel>();
  askedLevels.set(server, levels);
  server.setRequestHandler('logging/setLevel', (request, ctx) => {
    levels.set(ctx.sessionId, request.params.level);
    return {};
  });
}

/**
 * Whether a message at `level` is at or above the level the session `sessionId` of `server` asked
 * for with `logging/setLevel`; every level is, before the session asks.
 */
export function passesAskedLevel(
  server: Server,
  sessionId: string | undefined,
  level: LoggingLevel,
): boolean {
  const threshold = askedLevels.get(server)?.get(sessionId);
  return threshold === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(threshold);
}

/**
 * Sends a served call's log message to its client, through the request `ctx` that speaks for it:
 * dropped below the level the client asked for (in the 2025 era, pass `legacy`, the server whose
 * sessions asked with `logging/setLevel`; in the 2026 era, the request's
 * `io.modelcontextprotocol/logLevel`, and nothing at all when the request asks for none), and
 * sent with the call's `token` under `_meta` (`CALL_TOKEN`), by which `connectMcp` shows it on
 * that call.
 */
export function sendCallLog(
  ctx: ServerContext,
  token: string | undefined,
  legacy: Server | undefined,
  params: LoggingMessageNotification['params'],
): Promise<void> {
  const threshold =
    legacy === undefined
      ? levelOf((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY])
      : askedLevels.get(legacy)?.get(ctx.sessionId);
  if (legacy === undefined && threshold === undefined) return Promise.resolve();
  if (threshold !== undefined && SEVERITY.indexOf(params.level) < SEVERITY.indexOf(threshold))
    return Promise.resolve();
  const { _meta: _, ...message } = params;
  return ctx.mcpReq.notify({
    method: 'notifications/message',
    params: token === undefined ? message : { ...message, _meta: { [CALL_TOKEN]: token } },
  });
}
