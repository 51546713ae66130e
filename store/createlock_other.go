//go:build !unix

package store

// lockDir has no lock to take here: createFile then leaves a deleted
// database's -wal and -shm files alone, as they may be another first
// start's, live.
func lockDir(string) (unlock func(), ok bool) { return nil, false }
