import type { Relationship } from '../dsl/fields.js';
import type { ResourceDefinition, SharedExistence } from '../dsl/resource.js';
import type { DataLayerCall, StageStart } from './instrumentation.js';
import { type Trace, traceOf } from './trace.js';

type Method = (...args: unknown[]) => unknown;

/** The data-layer methods reported as `data` stages (each takes its context last). */
const CALLS: ReadonlySet<string> = new Set<DataLayerCall>([
  'find',
  'findMany',
  'results',
  'count',
  'loadRelated',
  'countRelated',
  'can',
  'create',
  'update',
  'delete',
  'addToRelationship',
  'removeFromRelationship',
]);

/**
 * A resource definition whose data-layer calls report to the trace of the context they are
 * given (`traceOf`), each as a `data` stage run inside its span. What `JsonApi` registers when
 * it traces, in place of the definition: the runtime's handlers stay as they are, and an API
 * that does not trace registers the definition itself. Every other method is the definition's,
 * called on it (a data layer that is a class keeps its `this`).
 *
 * @example
 * import { articles } from './schema.js';
 * import { store } from './store.js';
 * const traced = tracedDefinition({ ...articles, ...store.articles });
 */
export function tracedDefinition(definition: ResourceDefinition): ResourceDefinition {
  const type = definition.type();
  const traced = Object.create(definition) as ResourceDefinition;
  const members = traced as unknown as Record<string, unknown>;
  for (const name of methodNames(definition)) {
    const method = (definition as unknown as Record<string, Method>)[name]!;
    members[name] = CALLS.has(name)
      ? reporting(method, definition, (args) => ({
          kind: 'data',
          name: name as DataLayerCall,
          type,
          ...(name === 'loadRelated' || name === 'countRelated' ? { relationship: relationshipName(args[0]) } : {}),
        }))
      : method.bind(definition);
  }
  const related = definition.related;
  if (related) {
    // The loaders by relationship, `(models, context, relationship)`: each reports as `loadRelated`.
    const loaders: Record<string, Method> = {};
    for (const name of Object.keys(related)) {
      const load = related[name] as Method;
      loaders[name] = reporting(
        load,
        related,
        () => ({ kind: 'data', name: 'loadRelated', type, relationship: name }),
        1,
      );
    }
    members.related = loaders;
  }
  const existence = definition.existence;
  if (existence) members.existence = { check: tracedExistence(existence.check), member: existence.member };
  return traced;
}

/** Shared existence checks, traced once each: the runtime groups types by their check's identity. */
const existenceChecks = new WeakMap<SharedExistence, SharedExistence>();

function tracedExistence(check: SharedExistence): SharedExistence {
  let traced = existenceChecks.get(check);
  if (!traced) {
    const exist = (check as unknown as Record<'exist', Method>).exist;
    traced = {
      exist: reporting(exist, check, () => ({ kind: 'data', name: 'exist' })) as SharedExistence['exist'],
    };
    existenceChecks.set(check, traced);
  }
  return traced;
}

/**
 * `method` called on `self`, reported as a stage of the trace of its context (the argument at
 * `contextAt`, default the last) when that context has one.
 */
function reporting(method: Method, self: unknown, start: (args: unknown[]) => StageStart, contextAt?: number): Method {
  return (...args) => {
    const trace = traceOf(args[contextAt ?? args.length - 1]);
    return trace ? report(trace, start(args), () => method.apply(self, args)) : method.apply(self, args);
  };
}

/** Runs `call` as a `data` stage: ended when it returns, or when the promise it returned settles. */
function report(trace: Trace, start: StageStart, call: () => unknown): unknown {
  const stage = trace.beginCall(start);
  let result: unknown;
  try {
    result = stage.run(call);
  } catch (error) {
    stage.end(error);
    throw error;
  }
  if (!isThenable(result)) {
    stage.end();
    return result;
  }
  const settling: Promise<unknown> = result instanceof Promise ? result : Promise.resolve(result);
  return settling.then(
    (value) => {
      stage.end();
      return value;
    },
    (error: unknown) => {
      stage.end(error);
      throw error;
    },
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function relationshipName(relationship: unknown): string | undefined {
  return (relationship as Relationship | undefined)?.name;
}

/** The names of the definition's methods, its own and its prototypes' (not Object's). */
function methodNames(definition: object): Set<string> {
  const names = new Set<string>();
  // A name seen nearer shadows the same name further up the chain, method or not.
  const seen = new Set<string>(['constructor']);
  for (
    let at: object | null = definition;
    at !== null && at !== Object.prototype;
    at = Object.getPrototypeOf(at) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(at)) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (typeof Object.getOwnPropertyDescriptor(at, name)?.value === 'function') names.add(name);
    }
  }
  return names;
}
