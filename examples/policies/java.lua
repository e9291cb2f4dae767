-- A Java project: `lcsb java.lua -- sh -c 'javac -d out src/*.java && java -cp out Main'`.
-- The java preset runs the JDK's programs (java, javac, jar, jshell, ...)
-- and maven's and gradle's launchers, with their download caches
-- (~/.m2/repository, ~/.gradle/caches) kept for the project between runs;
-- not ~/.m2/settings.xml, which may hold a repository's password.
-- Downloading dependencies needs net = { domains = { "repo.maven.apache.org" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.java, lcsb.tools.shell },
  net = false,
}
