// The app's version: the one place it is set. The service worker names its cache after it, so a
// new version is a new, complete cache and never a mix of old and new files.
export const VERSION = "1.9.5";
