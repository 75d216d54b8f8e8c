// Package rundir is what a run directory holds, by name and by type: its file
// names, manifest.json's Manifest and the types a manifest records (the sweep
// Config with its sampler.Specs, the TaskSpec, Jobs and the Shard). Package eval
// writes run directories, package reports/runreport reads them and
// reports/fixture fabricates them; reports cannot import eval (eval imports
// reports), so the one definition of the layout lives here, where all three
// import it.
package rundir
