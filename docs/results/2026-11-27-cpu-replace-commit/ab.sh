#!/usr/bin/env bash
# Replacing an existing output: the commit stage of `apsp solve -o d.bin`
# into a new d.bin and then again over it, for two binaries.
# Run beside apsp-before and apsp-after (the CLI built before and after the
# change) and g.bin (apsp gen random -n 16384 -m 16384 --seed 7 -o g.bin).
# Variant "back-to-back": the second solve starts at once, so the old d.bin
# is still dirty in the page cache; "synced": `sync` between the two solves,
# as when an output on disk is replaced later.
cd "$(dirname "$0")"
echo "rep,binary,variant,solve,compute_ms,commit_ms,total_ms" > replace.csv
for rep in 1 2 3; do
  for bin in before after; do
    for variant in back-to-back synced; do
      rm -f d.bin .d.bin.apsp-*
      sync
      for solve in new replace; do
        [ $solve = replace ] && [ $variant = synced ] && sync
        ./apsp-$bin solve g.bin --algo dijkstra -o d.bin > run.log 2>&1
        c=$(awk '$1=="compute"{print $2}' run.log); m=$(awk '$1=="commit"{print $2}' run.log); t=$(awk '$1=="total"{print $2}' run.log)
        echo "$rep,$bin,$variant,$solve,$c,$m,$t" >> replace.csv
      done
    done
  done
done
rm -f d.bin run.log
