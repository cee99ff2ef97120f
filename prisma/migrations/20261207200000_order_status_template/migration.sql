-- Issue 37 §1: an order's status may be carried by Meta's order-status template (outside the 24-hour window); the
-- history names it. Null: the interactive order_status message (or the order_details row, whose template is the
-- order's).
ALTER TABLE "order_messages" ADD COLUMN "template_name" TEXT;
