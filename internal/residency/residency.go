// Package residency releases the pages of the binary that package init
// made resident and the command will not use again.
//
// Go runs the init of every package a binary links before main, whatever
// the command: about 250 packages here, whose init code and the tables it
// reads are spread over the binary's 17 MB of text and 26 MB of read-only
// data. Each first touch of a page maps a whole window of the file
// around it (Linux maps the page cache's folio, or 64 KB, per fault), so
// init alone leaves 18–20 MB of the binary resident, of which a `-p` turn
// then uses a part. Release drops those mappings once, as main starts:
// the pages stay in the page cache, shared and clean, and a page the
// command touches again comes back with a minor fault. What the process's
// RSS then counts of the binary is what the command runs.
package residency
