/**
 * What the Node entry (index.ts) registers for the contract, without the engine: zod 3 support,
 * ajv and RE2 for the schemas `tool()` compiles, Standard Schema support, the engine's
 * OpenTelemetry spans, one check of a typed call's arguments, the direct run of a `tool()`
 * function that returns a value, and the steps of `context.step`. Importing it registers them.
 *
 * index.ts imports it and adds the solo run of the engine; `agenttool serve`, which serves tools
 * without the engine, imports it alone (cli/tool-contract.ts), so that the bundled tools it loads
 * at its first tools request (cli/serve-bundled.ts) bring neither the engine's operators nor the
 * wire.
 *
 * @module
 */
import { registerZod3 } from './schema/zod3.js';
import { registerLinearPatterns } from './validation/linear-regexp.js';
import { registerAjv } from './validation/validation.js';
import { installCallSpans } from './telemetry/call-spans.js';
import { registerStandardSchema, registerValibotConverter } from './schema/standard.js';
import { onceReader } from './schema/decode-once.js';
import { registerDecodeOnce } from './tool-arguments.js';
import { registerDirectRun } from './call-consumer.js';
import { runDirect } from './direct-run.js';
import { registerSteps } from './steps.js';

registerZod3();
registerAjv();
registerLinearPatterns();
installCallSpans();
registerStandardSchema();
registerValibotConverter();
registerDecodeOnce(onceReader);
registerDirectRun(runDirect);
registerSteps();
