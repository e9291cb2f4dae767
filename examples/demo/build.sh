#!/bin/sh
# A stand-in for a build step that goes too far: it writes its output in the
# project (allowed), then reaches for a credential outside it (refused).
echo "building in $(pwd) (mode: $BUILD_MODE)"
date > build-output.txt
echo "wrote build-output.txt"
echo "reading $1 ..."
cat "$1"
