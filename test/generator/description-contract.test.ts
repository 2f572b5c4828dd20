/**
 * The generator reads a schema only through the runtime's description (`describeSchema`):
 * its model of a resource is a function of that plain data alone, so a description that went
 * through JSON (no class, no function, no getter left) gives the same model.
 */
import { describe, expect, expectTypeOf, test } from 'vitest';
import { type SchemaDescription, describeSchema } from 'jsonapi-gen';
import { buildModel, resourceModel } from '../../generator/model.js';
import { loadFixture } from './fixtures.js';

describe("the runtime description is the generator's one contract", () => {
  test('the model of a resource is built from a SchemaDescription', () => {
    expectTypeOf(resourceModel).parameter(1).toEqualTypeOf<SchemaDescription>();
  });

  test.each(['minimal', 'blog', 'kitchen-sink'])(
    'fixtures/%s: the description, through JSON, gives the model the build uses',
    async (name) => {
      const loaded = await loadFixture(`${name}/schema.ts`);
      const model = buildModel(loaded, './schema.ts');
      for (const { exportName, schema } of loaded.resources) {
        const plain = JSON.parse(JSON.stringify(describeSchema(schema))) as SchemaDescription;
        expect(resourceModel(exportName, plain)).toStrictEqual(
          model.resources.find((r) => r.exportName === exportName),
        );
      }
    },
  );
});
