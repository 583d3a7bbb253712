/**
 * `redisTaskStore()`: the tasks of MCP's tasks extension held in Redis, where every instance
 * serving the same tools finds them.
 *
 * @module
 */
import { Redis, type RedisOptions } from 'ioredis';
import { Observable } from 'rxjs';
import { describeThrown } from '../../lib/errors.js';
import { damagedTask, readStoredTask } from '../mcp-server/stored-task-check.js';
import type { StoredTask, TaskMessage, TaskStore, TaskView } from '../mcp-server/task-store.js';

/** Options of {@link redisTaskStore}. */
export interface RedisTaskStoreOptions {
  /**
   * What every key and channel of the store begins with (default `agenttool:tasks:`): stores with
   * different prefixes share one Redis without seeing each other's tasks.
   */
  prefix?: string | undefined;
  /**
   * Told when the connection to Redis fails or comes back (one line per change, not per retry).
   * Default: one line on stderr. Requests that need the store fail with a clear error meanwhile.
   */
  onError?: ((error: Error) => void) | undefined;
  /** Options for the ioredis connections (timeouts, TLS, ...); the URL's parts win. */
  redis?: RedisOptions | undefined;
}

const FINAL = `local s = cjson.decode(cur).status
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end`;

/** KEYS: task, lease. ARGV: json, px ('' for none), owner, leaseMs. */
const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1])
else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 1`;

/** KEYS: task. ARGV: json. -1: no task; 0: final already; 1: written. */
const PUT = `local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
${FINAL}
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`;

/** KEYS: task, lease. ARGV: owner, leaseMs. */
const RENEW = `local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
${FINAL}
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`;

/** KEYS: task, lease. ARGV: json. */
const ABANDON = `local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
${FINAL}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`;

/** KEYS: task, inbox. ARGV: message json, channel. -1: no task. */
const SEND = `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
redis.call('PUBLISH', ARGV[2], '1')
return 1`;

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return '(a Redis URL that does not parse)';
  }
}

function isMessage(value: unknown): value is TaskMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, inputResponses } = value as { kind?: unknown; inputResponses?: unknown };
  if (kind === 'cancel') return true;
  return (
    kind === 'answers' &&
    typeof inputResponses === 'object' &&
    inputResponses !== null &&
    !Array.isArray(inputResponses)
  );
}

/**
 * A task store in Redis at `url` (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS):
 * tasks, their leases and the messages to their running instances, shared by every instance
 * given the same Redis and prefix. A task's key expires with its TTL. Messages are kept in a list
 * per task and announced on a channel, so an instance that reconnects reads what it missed. Two
 * connections are opened (one listens); `close()` ends them.
 *
 * Needs the `ioredis` package (`npm install ioredis`).
 */
export function redisTaskStore(url: string, options: RedisTaskStoreOptions = {}): TaskStore {
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url))
    throw new TypeError(
      `redisTaskStore: expected a redis:// or rediss:// URL, got ${JSON.stringify(url)}`,
    );
  const prefix = options.prefix ?? 'agenttool:tasks:';
  const where = shown(url);
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`agenttool: ${error.message}\n`));
  const tell = (error: Error): void => {
    try {
      onError(error);
    } catch {
      // A reporter that throws must not take the process down.
    }
  };
  const connect = (role: string): Redis => {
    const redis = new Redis(url, {
      // A request fails soon while Redis is away, rather than waiting on it.
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      ...options.redis,
    });
    let down = false;
    redis.on('error', (err: Error) => {
      if (down) return;
      down = true;
      tell(new Error(`task store: Redis at ${where} (${role}): ${err.message}`));
    });
    redis.on('ready', () => {
      if (!down) return;
      down = false;
      tell(new Error(`task store: Redis at ${where} (${role}) is back`));
    });
    return redis;
  };
  const redis = connect('commands');
  // The scripts are sent once and run by their digest after (EVALSHA).
  const scripts = {
    CREATE: [2, CREATE],
    PUT: [1, PUT],
    RENEW: [2, RENEW],
    ABANDON: [2, ABANDON],
    SEND: [2, SEND],
  } as const;
  for (const [name, [numberOfKeys, lua]] of Object.entries(scripts))
    redis.defineCommand(`agenttool${name}`, { numberOfKeys, lua });
  const script = (name: keyof typeof scripts, ...args: string[]): Promise<unknown> =>
    (redis as unknown as Record<string, (...a: string[]) => Promise<unknown>>)[`agenttool${name}`]!(
      ...args,
    );
  const listener = connect('messages');
  const keys = (taskId: string) => {
    const task = `${prefix}${taskId}`;
    return { task, lease: `${task}:lease`, inbox: `${task}:inbox` };
  };
  const failed = (what: string, err: unknown): Error =>
    new Error(`task store: Redis at ${where}: ${what}: ${describeThrown(err)}`);
  const run = async <T>(what: string, command: () => Promise<T>): Promise<T> => {
    try {
      return await command();
    } catch (err) {
      throw failed(what, err);
    }
  };
  // What another writer put under a task's key reads as a failed task saying what is wrong with
  // it (stored-task-check.ts), never as an error out of the request that read it.
  const parse = (taskId: string, text: string): StoredTask => {
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return damagedTask(taskId, 'it is not JSON');
    }
    return readStoredTask(taskId, record);
  };

  /** Per channel: the readers of its task's inbox in this process. */
  const readers = new Map<string, Set<() => void>>();
  listener.on('message', (channel: string) => {
    for (const read of readers.get(channel) ?? []) read();
  });
  // After a reconnection ioredis subscribes again; what was sent meanwhile is read now.
  listener.on('ready', () => {
    for (const set of readers.values()) for (const read of set) read();
  });

  return {
    async create(task, leaseMs) {
      const k = keys(task.taskId);
      const px =
        task.ttlMs === null ? '' : String(Math.max(1, task.createdAt + task.ttlMs - Date.now()));
      const made = await run(`creating task ${task.taskId}`, () =>
        script('CREATE', k.task, k.lease, JSON.stringify(task), px, task.owner, String(leaseMs)),
      );
      if (made !== 1) throw new Error(`task store: task ${JSON.stringify(task.taskId)} exists`);
    },
    async get(taskId): Promise<TaskView | undefined> {
      const k = keys(taskId);
      const replies = await run(`reading task ${taskId}`, () =>
        redis.multi().get(k.task).exists(k.lease).exec(),
      );
      const [[, text], [, leased]] = replies as [
        [Error | null, string | null],
        [Error | null, number],
      ];
      if (text === null) return undefined;
      return { task: parse(taskId, text), leased: leased === 1 };
    },
    async put(task) {
      const wrote = await run(`writing task ${task.taskId}`, () =>
        script('PUT', keys(task.taskId).task, JSON.stringify(task)),
      );
      return wrote === 1;
    },
    async renew(taskId, owner, leaseMs) {
      const k = keys(taskId);
      const held = await run(`renewing the lease of task ${taskId}`, () =>
        script('RENEW', k.task, k.lease, owner, String(leaseMs)),
      );
      return held === 1;
    },
    async abandon(task) {
      const k = keys(task.taskId);
      const wrote = await run(`failing task ${task.taskId}`, () =>
        script('ABANDON', k.task, k.lease, JSON.stringify(task)),
      );
      return wrote === 1;
    },
    async send(taskId, message) {
      const k = keys(taskId);
      const sent = await run(`sending to task ${taskId}`, () =>
        script('SEND', k.task, k.inbox, JSON.stringify(message), k.inbox),
      );
      if (sent === -1) throw new Error(`task store: no task ${JSON.stringify(taskId)}`);
    },
    messages(taskId) {
      return new Observable<TaskMessage>((subscriber) => {
        const { inbox } = keys(taskId);
        let cursor = 0;
        let reading = false;
        let again = false;
        let closed = false;
        const read = (): void => {
          if (closed) return;
          if (reading) {
            again = true;
            return;
          }
          reading = true;
          again = false;
          redis.lrange(inbox, cursor, -1).then(
            (items) => {
              reading = false;
              if (closed) return;
              cursor += items.length;
              for (const item of items) {
                let message: unknown;
                try {
                  message = JSON.parse(item);
                } catch {
                  message = undefined;
                }
                // Something else wrote to the list: skipped, never taken for an answer.
                if (isMessage(message)) subscriber.next(message);
              }
              if (again) read();
            },
            (err: unknown) => {
              reading = false;
              // Read again at the next announcement or reconnection.
              if (!closed) tell(failed(`reading the messages of task ${taskId}`, err));
            },
          );
        };
        let set = readers.get(inbox);
        if (set === undefined) {
          readers.set(inbox, (set = new Set()));
          listener
            .subscribe(inbox)
            .then(read, (err: unknown) => tell(failed(`listening to task ${taskId}`, err)));
        } else read();
        set.add(read);
        return () => {
          closed = true;
          set.delete(read);
          if (set.size === 0) {
            readers.delete(inbox);
            listener.unsubscribe(inbox).catch(() => undefined);
          }
        };
      });
    },
    async close() {
      readers.clear();
      await Promise.all([redis.quit(), listener.quit()].map((p) => p.catch(() => undefined)));
    },
  };
}
