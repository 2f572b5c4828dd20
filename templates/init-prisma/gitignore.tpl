node_modules/
*.sqlite
*.sqlite-*
# `npm run prisma:generate` writes the Prisma client here.
prisma/generated/
