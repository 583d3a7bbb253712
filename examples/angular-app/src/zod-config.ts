// zod compiles a fast path with `new Function` unless told not to, and under a CSP without
// 'unsafe-eval' even its probe for eval is reported as a violation. Imported first by main.ts,
// so that it is set before any module makes a schema.
import { z } from 'zod';

z.config({ jitless: true });
