{
  "version": "7",
  "dialect": "sqlite",
  "entries": [
    {
      "idx": 0,
      "version": "6",
      "when": 1767225600000,
      "tag": "0000_authors_and_books",
      "breakpoints": true
    },
    {
      "idx": 1,
      "version": "6",
      "when": 1767225600001,
      "tag": "0001_idempotency_keys",
      "breakpoints": true
    }
  ]
}
