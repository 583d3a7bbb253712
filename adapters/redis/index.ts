/**
 * `agenttool/redis`: what agenttool keeps in Redis, for instances on several machines: MCP tasks
 * (`redisTaskStore`, needs `ioredis`) and a worker fleet for tool calls on BullMQ (`queueTools`,
 * `runWorker`, needs `bullmq` and `ioredis`).
 *
 * @module agenttool/redis
 */
import { installCallSpans } from '../../lib/telemetry/call-spans.js';
import { registerSteps } from '../../lib/steps.js';

// Node only, like the package root: spans once the application registers a provider, and the
// steps of `context.step` for a worker's tools.
installCallSpans();
registerSteps();

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
