#!/bin/bash
# The whole test command from a clean clone beside two busy loops.
bash -c 'while :; do :; done' & b1=$!
bash -c 'while :; do :; done' & b2=$!
cd /tmp/ci-x/main
CI=true bash .ci/run > /tmp/ci-x.log 2>&1
echo "rc=$?" >> /tmp/ci-x.log
kill $b1 $b2
