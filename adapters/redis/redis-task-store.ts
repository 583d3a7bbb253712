/**
 * `redisTaskStore()`: the tasks of MCP's tasks extension held in Redis, where every instance
 * serving the same tools finds them.
 *
 * @module
 */
import { Redis, type RedisOptions } from 'ioredis';
import { Observable, type Subscriber } from 'rxjs';
import { describeThrown } from '../../lib/errors.js';
import { damagedTask, readStoredTask } from '../mcp-server/tasks/stored-task-check.js';
import type {
  StoredTask,
  TaskMessage,
  TaskStore,
  TaskView,
} from '../mcp-server/tasks/task-store.js';

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

/** The lua scripts, by the name each is defined under (sent once, then run by digest). */
const SCRIPTS = {
  CREATE: [2, CREATE],
  PUT: [1, PUT],
  RENEW: [2, RENEW],
  ABANDON: [2, ABANDON],
  SEND: [2, SEND],
} as const;

/** The keys of one task: its record, its lease, its inbox (also the inbox's channel). */
function keysOf(prefix: string, taskId: string): { task: string; lease: string; inbox: string } {
  const task = `${prefix}${taskId}`;
  return { task, lease: `${task}:lease`, inbox: `${task}:inbox` };
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
  return new RedisTaskStore(url, options);
}

/** The store {@link redisTaskStore} makes: a connection for commands, one that listens. */
class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly where: string;
  private readonly redis: Redis;
  private readonly listener: Redis;
  /** Per channel: the readers of its task's inbox in this process. */
  private readonly readers = new Map<string, Set<() => void>>();

  constructor(
    private readonly url: string,
    private readonly options: RedisTaskStoreOptions,
  ) {
    this.prefix = options.prefix ?? 'agenttool:tasks:';
    this.where = shown(url);
    this.redis = this.connect('commands');
    for (const [name, [numberOfKeys, lua]] of Object.entries(SCRIPTS))
      this.redis.defineCommand(`agenttool${name}`, { numberOfKeys, lua });
    this.listener = this.connect('messages');
    this.listener.on('message', (channel: string) => {
      for (const read of this.readers.get(channel) ?? []) read();
    });
    // After a reconnection ioredis subscribes again; what was sent meanwhile is read now.
    this.listener.on('ready', () => {
      for (const set of this.readers.values()) for (const read of set) read();
    });
  }

  async create(task: StoredTask, leaseMs: number): Promise<void> {
    const k = this.keys(task.taskId);
    const px =
      task.ttlMs === null ? '' : String(Math.max(1, task.createdAt + task.ttlMs - Date.now()));
    const made = await this.run(`creating task ${task.taskId}`, () =>
      this.script('CREATE', k.task, k.lease, JSON.stringify(task), px, task.owner, String(leaseMs)),
    );
    if (made !== 1) throw new Error(`task store: task ${JSON.stringify(task.taskId)} exists`);
  }

  async get(taskId: string): Promise<TaskView | undefined> {
    const k = this.keys(taskId);
    const replies = await this.run(`reading task ${taskId}`, () =>
      this.redis.multi().get(k.task).exists(k.lease).exec(),
    );
    const [[, text], [, leased]] = replies as [
      [Error | null, string | null],
      [Error | null, number],
    ];
    if (text === null) return undefined;
    return { task: parse(taskId, text), leased: leased === 1 };
  }

  async put(task: StoredTask): Promise<boolean> {
    const wrote = await this.run(`writing task ${task.taskId}`, () =>
      this.script('PUT', this.keys(task.taskId).task, JSON.stringify(task)),
    );
    return wrote === 1;
  }

  async renew(taskId: string, owner: string, leaseMs: number): Promise<boolean> {
    const k = this.keys(taskId);
    const held = await this.run(`renewing the lease of task ${taskId}`, () =>
      this.script('RENEW', k.task, k.lease, owner, String(leaseMs)),
    );
    return held === 1;
  }

  async abandon(task: StoredTask): Promise<boolean> {
    const k = this.keys(task.taskId);
    const wrote = await this.run(`failing task ${task.taskId}`, () =>
      this.script('ABANDON', k.task, k.lease, JSON.stringify(task)),
    );
    return wrote === 1;
  }

  async send(taskId: string, message: TaskMessage): Promise<void> {
    const k = this.keys(taskId);
    const sent = await this.run(`sending to task ${taskId}`, () =>
      this.script('SEND', k.task, k.inbox, JSON.stringify(message), k.inbox),
    );
    if (sent === -1) throw new Error(`task store: no task ${JSON.stringify(taskId)}`);
  }

  messages(taskId: string): Observable<TaskMessage> {
    return new Observable<TaskMessage>((subscriber) => {
      const { inbox } = this.keys(taskId);
      const reader = new InboxReader(this.redis, inbox, subscriber, (err) =>
        // Read again at the next announcement or reconnection.
        this.tell(this.failed(`reading the messages of task ${taskId}`, err)),
      );
      const read = (): void => reader.read();
      let set = this.readers.get(inbox);
      if (set === undefined) {
        this.readers.set(inbox, (set = new Set()));
        this.listener
          .subscribe(inbox)
          .then(read, (err: unknown) => this.tell(this.failed(`listening to task ${taskId}`, err)));
      } else read();
      set.add(read);
      return () => {
        reader.close();
        set.delete(read);
        if (set.size === 0) {
          this.readers.delete(inbox);
          this.listener.unsubscribe(inbox).catch(() => undefined);
        }
      };
    });
  }

  async close(): Promise<void> {
    this.readers.clear();
    await Promise.all(
      [this.redis.quit(), this.listener.quit()].map((p) => p.catch(() => undefined)),
    );
  }

  private keys(taskId: string): { task: string; lease: string; inbox: string } {
    return keysOf(this.prefix, taskId);
  }

  private script(name: keyof typeof SCRIPTS, ...args: string[]): Promise<unknown> {
    const commands = this.redis as unknown as Record<string, (...a: string[]) => Promise<unknown>>;
    return commands[`agenttool${name}`]!(...args);
  }

  private async run<T>(what: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw this.failed(what, err);
    }
  }

  private failed(what: string, err: unknown): Error {
    return new Error(`task store: Redis at ${this.where}: ${what}: ${describeThrown(err)}`);
  }

  /** Tells `onError` (default: a line on stderr); a reporter that throws is ignored. */
  private tell(error: Error): void {
    try {
      if (this.options.onError === undefined) process.stderr.write(`agenttool: ${error.message}\n`);
      else this.options.onError(error);
    } catch {
      // A reporter that throws must not take the process down.
    }
  }

  /** A connection that says once when it fails and once when it is back, not per retry. */
  private connect(role: string): Redis {
    const redis = new Redis(this.url, {
      // A request fails soon while Redis is away, rather than waiting on it.
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      ...this.options.redis,
    });
    let down = false;
    redis.on('error', (err: Error) => {
      if (down) return;
      down = true;
      this.tell(new Error(`task store: Redis at ${this.where} (${role}): ${err.message}`));
    });
    redis.on('ready', () => {
      if (!down) return;
      down = false;
      this.tell(new Error(`task store: Redis at ${this.where} (${role}) is back`));
    });
    return redis;
  }
}

/**
 * What another writer put under a task's key reads as a failed task saying what is wrong with it
 * (stored-task-check.ts), never as an error out of the request that read it.
 */
function parse(taskId: string, text: string): StoredTask {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return damagedTask(taskId, 'it is not JSON');
  }
  return readStoredTask(taskId, record);
}

/**
 * One subscriber's reading of a task's inbox: each `read` takes the messages past its cursor,
 * one read at a time (a read asked for meanwhile runs once the current one ends).
 */
class InboxReader {
  private cursor = 0;
  private reading = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly inbox: string,
    private readonly subscriber: Subscriber<TaskMessage>,
    private readonly failed: (err: unknown) => void,
  ) {}

  read(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.again = false;
    this.redis.lrange(this.inbox, this.cursor, -1).then(
      (items) => this.got(items),
      (err: unknown) => {
        this.reading = false;
        if (!this.closed) this.failed(err);
      },
    );
  }

  close(): void {
    this.closed = true;
  }

  private got(items: string[]): void {
    this.reading = false;
    if (this.closed) return;
    this.cursor += items.length;
    for (const item of items) {
      let message: unknown;
      try {
        message = JSON.parse(item);
      } catch {
        message = undefined;
      }
      // Something else wrote to the list: skipped, never taken for an answer.
      if (isMessage(message)) this.subscriber.next(message);
    }
    if (this.again) this.read();
  }
}
