/**
 * OpenTelemetry integration: `openTelemetry()`, the API's `instrument` option, tracing each
 * request of a jsonapi-gen API with a span, and its stages and data-layer calls with child spans.
 *
 * @module @jsonapi-gen/opentelemetry
 */
export { type OpenTelemetryOptions, openTelemetry } from './spans.js';
