/**
 * agenttool: the tool contract (lib/), the execution engine (operators/) and the front's wire
 * (adapters/wire/), each value one that README.md or a guide in docs/ uses; the engine's and the
 * wire's other values are in `agenttool/operators` and `agenttool/wire` (root.ts).
 *
 * This is the entry Node and server bundles load; it registers zod 3 support (see
 * {@link registerZod3}), ajv for `tool()` where eval is allowed, RE2 for the patterns of schemas
 * from elsewhere ({@link registerLinearPatterns}), Standard Schema support for `tool()`
 * ({@link registerStandardSchema}, valibot's JSON Schema through `@valibot/to-json-schema`), and
 * the engine's OpenTelemetry spans, made once the application registers a provider
 * (docs/telemetry.md), and one check of a typed call's arguments where two decide the same
 * (docs/tools.md), and the direct run of a `tool()` function that returns a value, without an
 * Observable between it and the engine (lib/direct-run.ts), and the steps of `context.step`
 * ({@link registerSteps}), and the run of a batch of one call without the engine's turn-taking
 * (operators/internal/solo-run.ts). Browser bundles load
 * `browser.ts` instead: the same names, registering none of them.
 *
 * What the first answer of a process does not need is loaded at its first use, through `require`
 * (each a CommonJS build): ajv and ajv-formats at the first schema ajv compiles, RE2 at the first
 * pattern compiled, zod-to-json-schema (and zod 3) at the first zod 3 schema converted.
 *
 * @module agenttool
 */
// The contract's registrations (lib/node-support.ts), then the engine's.
import './lib/node-support.js';
import { registerSoloRun } from './operators/execute-batch.js';
import { runsAlone, SoloRun } from './operators/internal/solo-run.js';

registerSoloRun({ runsAlone, SoloRun });

// The contract, and the engine's and the wire's values the guides use (root.ts).
export * from './root.js';
