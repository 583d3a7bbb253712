/**
 * OpenTelemetry's switch (docs/telemetry.md).
 *
 * @module
 */
import { useOpenTelemetry } from '../lib/telemetry/open-telemetry.js';
import { installCallSpans } from '../lib/telemetry/call-spans.js';

/**
 * Has this package use `module`, the application's `@opentelemetry/api` module (1.x), for its
 * spans and metrics: for a bundle (a browser page, a server bundled without `node_modules`),
 * where the package cannot find the API by itself. In Node, importing the package root is
 * enough: it finds the API where it is installed. Registering `undefined` turns telemetry off
 * for good.
 *
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { registerOpenTelemetry } from 'agenttool';
 * registerOpenTelemetry(otel);
 * ```
 *
 * @throws TypeError for a value that is not the API module.
 */
export function registerOpenTelemetry(module: object | undefined): void {
  useOpenTelemetry(module);
  installCallSpans();
}
