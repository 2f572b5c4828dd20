/**
 * The API, declared once. `npm run build` (and `npm start`, which builds first) turns it into
 * `src/generated/`: typed data-layer interfaces, createApi(...) and openapi.json.
 */
import { Attribute, Create, Delete, Index, Show, ToMany, ToOne, Update, defineResource } from 'jsonapi-gen';
import { SortColumn, Where } from '@jsonapi-gen/kysely';

export const authors = defineResource({
  type: 'authors',
  fields: [
    Attribute.make('name').type('string').writable().required(),
    ToMany.make('books').type('books').includable(),
  ],
  endpoints: [Show.make(), Index.make().paginate(20, 100).defaultSort('name'), Create.make(), Update.make(), Delete.make()],
  filters: [Where.make('name')],
  sorts: [SortColumn.make('name')],
});

export const books = defineResource({
  type: 'books',
  fields: [
    Attribute.make('title').type('string').writable().required(),
    Attribute.make('year').type('integer').nullable().writable(),
    ToOne.make('author').type('authors').includable().writable().required(),
  ],
  endpoints: [Show.make(), Index.make().paginate(20, 100).defaultSort('title'), Create.make(), Update.make(), Delete.make()],
  filters: [Where.make('title'), Where.make('author').column('author_id')],
  sorts: [SortColumn.make('title'), SortColumn.make('year')],
});
