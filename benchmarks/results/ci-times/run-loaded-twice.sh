#!/bin/bash
# The whole test command from a clean clone beside two busy loops, twice in a row.
bash -c 'while :; do :; done' & b1=$!
bash -c 'while :; do :; done' & b2=$!
for i in 1 2; do
  rm -rf /tmp/ci-x; mkdir -p /tmp/ci-x
  git clone -q /work/main /tmp/ci-x/main; ln -s /work/shared /tmp/ci-x/shared
  cd /tmp/ci-x/main
  start=$(date +%s)
  CI=true bash .ci/run > /tmp/ciload/run$i.log 2>&1
  rc=$?
  echo "rc=$rc wall=$(( $(date +%s) - start ))s" >> /tmp/ciload/run$i.log
  cp -r /tmp/ci-x/main/build/Testing/Temporary/CTestCostData.txt /tmp/ciload/mpich-costs-$i.txt 2>/dev/null
  cp -r /tmp/ci-x/main/build-asan-openmpi/Testing/Temporary/CTestCostData.txt /tmp/ciload/asan-costs-$i.txt 2>/dev/null
  cd /
done
kill $b1 $b2
