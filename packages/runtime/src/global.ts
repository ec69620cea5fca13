/**
 * The classic-script build (`@jsprof/runtime/global`, for `<script src>` and `importScripts`): loading it
 * installs `globalThis.Profiler` and `performance.profile`, and exposes the runtime as
 * `globalThis.jsprof` (`jsprof.install({ preferNative: true })` puts back a native Profiler the page may use).
 */
import * as runtime from './browser';
import { defineGlobal } from './globals';

runtime.install();
defineGlobal('jsprof', runtime);
