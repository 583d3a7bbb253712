import { bootstrapApplication } from '@angular/platform-browser';
import { z } from 'zod';
import { AppComponent } from './app/app.component';

// zod compiles a fast path with `new Function` unless told not to; under a CSP without
// 'unsafe-eval' even its probe for eval is reported as a violation.
z.config({ jitless: true });

bootstrapApplication(AppComponent).catch((err: unknown) => console.error(err));
