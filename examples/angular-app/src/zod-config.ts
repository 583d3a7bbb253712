/**
 * Imported first by main.ts, so that it runs before any other module: tells zod not to generate code.
 * zod compiles a fast path for object schemas with `new Function` unless `jitless` is set, and
 * under a CSP without 'unsafe-eval' even its probe for eval is reported as a violation. The probe
 * runs when the first object schema is made, and the MCP SDK makes its schemas as it loads, so this
 * must come first.
 */
import * as z from 'zod';

z.config({ jitless: true });
