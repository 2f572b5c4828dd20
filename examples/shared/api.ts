/**
 * The API every adapter example serves: authors and their books, in memory, mounted at
 * `/api/v1`. Swap the arrays for your database; the framework wiring stays the same.
 *
 *   GET    /api/v1/books?include=author&sort=-year
 *   POST   /api/v1/books          (Content-Type: application/vnd.api+json)
 *   PATCH  /api/v1/books/1
 *   DELETE /api/v1/books/1
 *   GET    /api/v1/authors/1/books
 */
import {
  Attribute,
  Create,
  CustomSort,
  Delete,
  Index,
  JsonApi,
  type JsonApiOptions,
  Show,
  ToMany,
  ToOne,
  Update,
  defineResource,
} from 'jsonapi-gen';

interface Author {
  id: number;
  name: string;
}

interface Book {
  id: number;
  title: string;
  year: number;
  authorId: number;
}

/** Where the examples mount the API. */
export const BASE_PATH = '/api/v1';

/** A fresh API with its own data: two authors, three books. `options` go to `new JsonApi`. */
export function createApi(options: Omit<JsonApiOptions, 'basePath'> = {}): JsonApi {
  const authors: Author[] = [
    { id: 1, name: 'Ursula K. Le Guin' },
    { id: 2, name: 'Octavia E. Butler' },
  ];
  const books: Book[] = [
    { id: 1, title: 'A Wizard of Earthsea', year: 1968, authorId: 1 },
    { id: 2, title: 'The Dispossessed', year: 1974, authorId: 1 },
    { id: 3, title: 'Kindred', year: 1979, authorId: 2 },
  ];
  const nextId = (rows: { id: number }[]) => Math.max(0, ...rows.map((row) => row.id)) + 1;

  const api = new JsonApi({ ...options, basePath: BASE_PATH });

  api.resource({
    ...defineResource<Author>({
      type: 'authors',
      fields: [
        Attribute.make('name').type('string').writable().required(),
        ToMany.make('books').type('books').includable(),
      ],
      endpoints: [Show.make(), Index.make(), Create.make()],
    }),
    find: (id) => authors.find((author) => String(author.id) === id),
    query: () => authors,
    results: (rows: Author[]) => rows,
    create: ({ attributes }) => {
      const author: Author = { id: nextId(authors), name: attributes.name as string };
      authors.push(author);
      return author;
    },
    loadRelated: (_relationship, models: readonly Author[]) =>
      models.map((author) => books.filter((book) => book.authorId === author.id)),
  });

  api.resource({
    ...defineResource<Book>({
      type: 'books',
      fields: [
        Attribute.make('title').type('string').writable().required(),
        Attribute.make('year').type('integer').writable(),
        ToOne.make('author').type('authors').includable().writable().required(),
      ],
      endpoints: [Show.make(), Index.make(), Create.make(), Update.make(), Delete.make()],
      sorts: [
        CustomSort.make('year', (rows: Book[], direction) =>
          [...rows].sort((a, b) => (direction === 'asc' ? a.year - b.year : b.year - a.year)),
        ),
      ],
    }),
    find: (id) => books.find((book) => String(book.id) === id),
    query: () => books,
    results: (rows: Book[]) => rows,
    create: ({ attributes, relationships }) => {
      const author = relationships.author as { id: string };
      const book: Book = {
        id: nextId(books),
        title: attributes.title as string,
        year: attributes.year as number,
        authorId: Number(author.id),
      };
      books.push(book);
      return book;
    },
    update: (book: Book, { attributes, relationships }) => {
      Object.assign(book, attributes);
      const author = relationships.author as { id: string } | undefined;
      if (author) book.authorId = Number(author.id);
      return book;
    },
    delete: (book: Book) => {
      books.splice(books.indexOf(book), 1);
    },
    loadRelated: (_relationship, models: readonly Book[]) =>
      models.map((book) => authors.find((author) => author.id === book.authorId) ?? null),
  });

  return api;
}
