'use strict';
/** Loads a library file's code (its own, or as instrumented) as the CommonJS module it is. */
const Module = require('node:module');
const path = require('node:path');

/** `code` compiled as the module `libraryFile`: its exports. */
function compileLibrary(libraryFile, code) {
  const library = new Module(libraryFile, module);
  library.filename = libraryFile;
  library.paths = Module._nodeModulePaths(path.dirname(libraryFile));
  library._compile(code, libraryFile);
  return library.exports;
}

module.exports = { compileLibrary };
