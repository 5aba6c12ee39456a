package suite

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fixture Suite")
}

var _ = Describe("Stage 99", func() {
	It("labels Jobs with their CronJob", func() {
		Expect(JobLabel()).To(Equal("batch.cronlab.dev/cronjob"))
	})
	It("writes the status", func() {
		Expect(len(Reconcile().Active)).To(Equal(0))
	})
	It("passes", func() {})
})
