#!/bin/sh
# Builds FerretDB v1.24.2 (the MongoDB-wire server the Mongo suites run against) into
# $(go env GOPATH)/bin/ferretdb, or into the directory given as $1.
# Plain `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` is not enough: the module
# zip lacks the generated build/version/version.txt, so that binary panics at start ("Invalid
# build/version/version.txt"), and go install's deprecation check reads the module's version list,
# which the proxy here refuses (403). So: download the exact version, add the file, build.
set -eu
version=v1.24.2
bin=${1:-"$(go env GOPATH)/bin"}
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
dir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp -R "$dir" "$work/src"
chmod -R u+w "$work/src"
echo "$version" > "$work/src/build/version/version.txt"
mkdir -p "$bin"
(cd "$work/src" && go build -o "$bin/ferretdb" ./cmd/ferretdb)
"$bin/ferretdb" --version | head -1
