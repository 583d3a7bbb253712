/**
 * `agenttool/redis`: what agenttool keeps in Redis, for instances on several machines: MCP tasks
 * (`redisTaskStore`). Needs the `ioredis` package.
 *
 * @module agenttool/redis
 */
export { redisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';
