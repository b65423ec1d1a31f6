// Prettier for the TypeScript and JavaScript of the tree (npm run format; npm run lint checks it).
// A width of 120: wide enough for the code's long calls and literals, narrow enough that two files fit side by side
// in a diff. Prettier does not break comments: the linter holds them to the same width (max-len).
export default {
  singleQuote: true,
  printWidth: 120,
  trailingComma: 'all',
  arrowParens: 'always',
};
