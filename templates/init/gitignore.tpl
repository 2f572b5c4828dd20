node_modules/
*.sqlite
*.sqlite-*
