/**
 * `agenttool/redis`: what agenttool keeps in Redis, for instances on several machines: MCP tasks
 * (`redisTaskStore`, needs `ioredis`) and a worker fleet for tool calls on BullMQ (`queueTools`,
 * `runWorker`, needs `bullmq` and `ioredis`).
 *
 * @module agenttool/redis
 */
export { redisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';
export {
  jobIdOf,
  queueTools,
  runWorker,
  type FleetConnection,
  type FleetOptions,
  type FleetWorker,
  type QueuedTools,
  type QueueToolsOptions,
  type WorkerOptions,
} from './fleet.js';
