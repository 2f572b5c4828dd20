// The tables of src/migrations/ as Prisma models, for the Prisma client the store reads and
// writes through. The migrations make the tables (`npm start` runs them), not `prisma migrate`:
// when you change a table, add a migration and change the model here to match. Fields are
// camelCase, mapped to the snake_case columns with @map; models are singular, mapped to the
// tables with @@map.

generator client {
  provider            = "prisma-client"
  output              = "./generated"
  moduleFormat        = "esm"
  runtime             = "nodejs"
  importFileExtension = "js"
}

datasource db {
  provider = "sqlite"
}

model Author {
  id    Int    @id @default(autoincrement())
  name  String
  books Book[]

  @@map("authors")
}

model Book {
  id       Int     @id @default(autoincrement())
  title    String
  year     Int?
  authorId Int     @map("author_id")
  author   Author  @relation(fields: [authorId], references: [id], onDelete: Cascade)

  @@index([authorId], map: "books_author_id")
  @@map("books")
}

/// Idempotency-Keys of POST requests and their responses (prismaIdempotency in src/server.ts).
model IdempotencyKey {
  key         String  @id
  fingerprint String
  /// Milliseconds since the epoch.
  createdAt   BigInt  @map("created_at")
  status      Int?
  response    String?
  holder      String?
  written     Int     @default(0)

  @@index([createdAt], map: "jsonapi_idempotency_keys_created_at_index")
  @@map("jsonapi_idempotency_keys")
}
