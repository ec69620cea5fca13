/**
 * The classic-script build (`@jsprof/runtime/global`, for `<script src>` and `importScripts`): loading it
 * installs `globalThis.Profiler` and `performance.profile` unless a working native `Profiler` is
 * there, and exposes the runtime as `globalThis.jsprof` (`install({ force: true })` replaces a native one).
 */
import * as runtime from './browser';
import { defineGlobal } from './globals';

runtime.install();
defineGlobal('jsprof', runtime);
